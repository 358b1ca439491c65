package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// storhfs mount takes flags before or after ROOT and MOUNTPOINT, and -o
// lists, through the parser the mount(8) helper uses.
func TestMountCommandArgs(t *testing.T) {
	flags := mountCommand().Flags
	cases := []struct {
		name    string
		args    []string
		want    []string
		wantErr string
	}{
		{"plain", []string{"/r", "/m"}, []string{"--", "/r", "/m"}, ""},
		{"flags first", []string{"--read-only", "/r", "/m"}, []string{"--read-only", "--", "/r", "/m"}, ""},
		{"flags after", []string{"/r", "/m", "--read-only", "--max-buffer-mb", "64"}, []string{"--read-only", "--max-buffer-mb", "64", "--", "/r", "/m"}, ""},
		{"flag between", []string{"/r", "--no-watch", "/m"}, []string{"--no-watch", "--", "/r", "/m"}, ""},
		{"-o after", []string{"/r", "/m", "-o", "ro,allow_other,max_buffer_mb=32"}, []string{"--read-only", "--allow-other", "--max-buffer-mb=32", "--", "/r", "/m"}, ""},
		{"-o before", []string{"-o", "nonempty", "/r", "/m"}, []string{"--allow-non-empty", "--", "/r", "/m"}, ""},
		{"shared storage", []string{"/r", "/m", "-o", "shared_storage,poll_interval=2s"}, []string{"--shared-storage", "--poll-interval=2s", "--", "/r", "/m"}, ""},
		{"log=FILE", []string{"/r", "/m", "-o", "log=/var/log/s.log"}, []string{"--log-file=/var/log/s.log", "--", "/r", "/m"}, ""},
		{"-- ends flags", []string{"--", "-r", "/m"}, []string{"--", "-r", "/m"}, ""},
		{"unknown option", []string{"/r", "/m", "-o", "ro,bogus"}, nil, `unknown mount option "bogus"`},
		{"ownership options", []string{"/r", "/m", "-o", "uid=0,gid=4294967294,umask=0,allow_root,default_permissions"},
			[]string{"--uid=0", "--gid=4294967294", "--umask=0", "--allow-root", "--default-permissions", "--", "/r", "/m"}, ""},
		{"ownership flags", []string{"/r", "/m", "--uid", "1000", "--gid=1000", "--umask", "077", "--allow-root", "--default-permissions"},
			[]string{"--uid", "1000", "--gid=1000", "--umask", "077", "--allow-root", "--default-permissions", "--", "/r", "/m"}, ""},
		{"uid not a number", []string{"/r", "/m", "-o", "uid=abc"}, nil, `mount option uid=abc: "abc" is not a user id`},
		{"uid negative", []string{"/r", "/m", "-o", "uid=-1"}, nil, `mount option uid=-1: "-1" is not a user id`},
		{"uid (uid_t)-1", []string{"/r", "/m", "-o", "uid=4294967295"}, nil, `mount option uid=4294967295: "4294967295" is not a user id`},
		{"uid too large", []string{"/r", "/m", "-o", "uid=4294967296"}, nil, `mount option uid=4294967296`},
		{"gid not a number", []string{"/r", "/m", "-o", "gid=staff"}, nil, `mount option gid=staff: "staff" is not a group id`},
		{"umask not octal", []string{"/r", "/m", "-o", "umask=999"}, nil, `mount option umask=999: "999" is not a umask`},
		{"umask too large", []string{"/r", "/m", "-o", "umask=1777"}, nil, `mount option umask=1777: "1777" is not a umask`},
		{"umask negative", []string{"/r", "/m", "-o", "umask=-22"}, nil, `mount option umask=-22`},
		{"allow_root with a value", []string{"/r", "/m", "-o", "allow_root=1"}, nil, `unknown mount option "allow_root=1"`},
		{"-o without value", []string{"/r", "/m", "-o"}, nil, "-o needs a value"},
	}
	for _, c := range cases {
		got, err := mountCommandArgs(c.args, flags)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s: error %v, want %q", c.name, err, c.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: mountCommandArgs(%q) = %q, %v; want %q", c.name, c.args, got, err, c.want)
		}
	}
}

// Every visible mount flag has an -o form, and the error lists them.
func TestEveryMountFlagHasAnOption(t *testing.T) {
	flags := mountCommand().Flags
	msg := optionNames(flags)
	for _, f := range flags {
		name := f.Names()[0]
		if vf, ok := f.(cli.VisibleFlag); ok && !vf.IsVisible() {
			continue // internal: --detached-log, --syslog-socket
		}
		opt := strings.ReplaceAll(name, "-", "_")
		if !strings.Contains(msg, opt) {
			t.Errorf("option list %q lacks %s", msg, opt)
		}
		if takesValue(name, flags) {
			opt += "=1"
		}
		if _, err := optionFlags(opt, flags, false); err != nil {
			t.Errorf("-o %s: %v", opt, err)
		}
	}
}

func TestMountUsageErrorsExit2(t *testing.T) {
	for _, args := range [][]string{
		{"mount", "/r", "/m", "-o", "bogus"},
		{"mount", "/r", "/m", "-o", "uid=abc"},
		{"mount", "/r", "/m", "--uid", "abc"},
		{"mount", "/r", "/m", "--umask=999"},
		{"mount", "/r", "/m", "--gid", "-5"},
		{"mount", "/r", "/m", "-o", "allow_root,allow_other"},
		{"mount", "/r"},
		{"mount", "--bogus", "/r", "/m"},
	} {
		if r := runCLI(t, "", args...); r.code != exitUsage {
			t.Errorf("storhfs %q: exit %d, want %d; stderr %q", args, r.code, exitUsage, r.stderr)
		}
	}
}

// A bad --uid, --gid or --umask and allow_root with allow_other are
// refused before anything is mounted, naming the flag.
func TestOwnershipFlagErrorsNameTheFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"mount", "/r", "/m", "--uid", "abc"}, `--uid: "abc" is not a user id`},
		{[]string{"mount", "/r", "/m", "--gid=-5"}, `--gid: "-5" is not a group id`},
		{[]string{"mount", "/r", "/m", "--umask", "999"}, `--umask: "999" is not a umask`},
		{[]string{"mount", "/r", "/m", "-o", "umask=8"}, `mount option umask=8: "8" is not a umask`},
		{[]string{"mount", "/r", "/m", "--allow-root", "--allow-other"}, "--allow-root and --allow-other exclude each other"},
	} {
		r := runCLI(t, "", c.args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("storhfs %q: exit %d, stderr %q; want exit %d and %q", c.args, r.code, r.stderr, exitUsage, c.want)
		}
	}
}

func TestParseUmaskAndID(t *testing.T) {
	for s, want := range map[string]uint32{"022": 0o22, "0027": 0o27, "7": 0o7, "0": 0, "777": 0o777} {
		if got, err := parseUmask(s); err != nil || got != want {
			t.Errorf("parseUmask(%q) = %o, %v; want %o", s, got, err, want)
		}
	}
	for _, s := range []string{"", "8", "999", "1000", "-1", "0x1f", "22a", "u=rwx"} {
		if _, err := parseUmask(s); err == nil {
			t.Errorf("parseUmask(%q) accepted", s)
		}
	}
	for s, want := range map[string]uint32{"0": 0, "1000": 1000, "65534": 65534, "4294967294": 4294967294} {
		if got, err := parseID("user", s); err != nil || got != want {
			t.Errorf("parseID(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "abc", "-1", "1.5", "+5", "4294967295", "99999999999", "root"} {
		if _, err := parseID("user", s); err == nil {
			t.Errorf("parseID(%q) accepted", s)
		}
	}
}
