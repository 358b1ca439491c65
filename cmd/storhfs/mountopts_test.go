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
		{"mount", "/r"},
		{"mount", "--bogus", "/r", "/m"},
	} {
		if r := runCLI(t, "", args...); r.code != exitUsage {
			t.Errorf("storhfs %q: exit %d, want %d; stderr %q", args, r.code, exitUsage, r.stderr)
		}
	}
}
