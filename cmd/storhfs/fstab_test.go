package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestIsMountHelperCall(t *testing.T) {
	commands := commandNames(newApp())
	cases := []struct {
		name string
		argv []string
		want bool
	}{
		{"fuse3 mount.fuse form", []string{"storhfs", "/var/storh/app", "/mnt/storh", "-o", "rw,dev,suid"}, true},
		{"relative source", []string{"storhfs", "demo-data", "mnt", "-o", "ro"}, true},
		{"helper link name", []string{"/sbin/mount.fuse.storhfs", "/var/storh/app", "/mnt/storh", "-o", "rw"}, true},
		{"helper link name, no options", []string{"mount.fuse.storhfs", "/var/storh/app", "/mnt/storh"}, true},
		{"helper link name, no arguments", []string{"mount.fuse.storhfs"}, true},
		{"mount command", []string{"storhfs", "mount", "/var/storh/app", "/mnt/storh"}, false},
		{"mount command with -o after", []string{"storhfs", "mount", "/r", "/m", "-o", "ro"}, false},
		{"stats command", []string{"storhfs", "stats", "/r", "-o", "x"}, false},
		{"help", []string{"storhfs", "help", "x", "-o", "y"}, false},
		{"flag first", []string{"storhfs", "--help", "x", "-o", "y"}, false},
		{"unknown command alone", []string{"storhfs", "bogus"}, false},
		{"two arguments without -o", []string{"storhfs", "/r", "/m"}, false},
		{"-o in the wrong place", []string{"storhfs", "/r", "-o", "ro", "/m"}, false},
		{"empty source", []string{"storhfs", "", "/m", "-o", "ro"}, false},
		{"no arguments", []string{"storhfs"}, false},
		{"empty argv", nil, false},
		{"other helper name without -o", []string{"mount.fuse.sshfs", "/r", "/m", "-x", "ro"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := isMountHelperCall(c.argv, commands); got != c.want {
				t.Errorf("isMountHelperCall(%q) = %v, want %v", c.argv, got, c.want)
			}
		})
	}
}

func TestParseHelperArgs(t *testing.T) {
	base := helperRequest{Source: "/var/storh/app", Mountpoint: "/mnt/storh"}
	with := func(f func(*helperRequest)) helperRequest {
		r := base
		f(&r)
		return r
	}
	flags := func(f ...string) helperRequest { return with(func(r *helperRequest) { r.Flags = f }) }
	cases := []struct {
		name    string
		args    []string
		want    helperRequest
		wantErr string
	}{
		{"fuse3 defaults", []string{"/var/storh/app", "/mnt/storh", "-o", "rw,dev,suid"}, flags("--read-only=false"), ""},
		{"ro", []string{"/var/storh/app", "/mnt/storh", "-o", "ro,dev,suid"}, flags("--read-only"), ""},
		{"last of ro and rw wins", []string{"/var/storh/app", "/mnt/storh", "-o", "ro,rw"}, flags("--read-only", "--read-only=false"), ""},
		{"fstab line", []string{"/var/storh/app", "/mnt/storh", "-o", "nofail,x-systemd.requires-mounts-for=/var/storh/app,_netdev,defaults,noauto,nouser,async,exec,nosuid,nodev,noatime"}, base, ""},
		{"all storhfs options", []string{"/var/storh/app", "/mnt/storh", "-o", "ro,allow_other,debug,log=/var/log/storhfs.log,no_watch,max_buffer_mb=64"},
			with(func(r *helperRequest) {
				r.Flags = []string{"--read-only", "--allow-other", "--debug", "--no-watch", "--max-buffer-mb=64"}
				r.LogPath = "/var/log/storhfs.log"
			}), ""},
		{"log_file is log", []string{"/var/storh/app", "/mnt/storh", "-o", "log_file=/l"}, with(func(r *helperRequest) { r.LogPath = "/l" }), ""},
		{"override options of the mount's checks", []string{"/var/storh/app", "/mnt/storh", "-o", "nonempty,allow_foreign_root"},
			flags("--allow-non-empty", "--allow-foreign-root"), ""},
		{"util-linux flags", []string{"/var/storh/app", "/mnt/storh", "-n", "-v", "-o", "ro", "-t", "fuse.storhfs"}, flags("--read-only"), ""},
		{"fake", []string{"/var/storh/app", "/mnt/storh", "-f"}, with(func(r *helperRequest) { r.Fake = true }), ""},
		{"two -o lists", []string{"/var/storh/app", "/mnt/storh", "-o", "ro", "-o", "allow_other"}, flags("--read-only", "--allow-other"), ""},
		{"no options", []string{"/var/storh/app", "/mnt/storh"}, base, ""},
		{"empty option items", []string{"/var/storh/app", "/mnt/storh", "-o", ",,ro,"}, flags("--read-only"), ""},
		{"sloppy ignores unknown", []string{"/var/storh/app", "/mnt/storh", "-s", "-o", "bogus,ro"}, flags("--read-only"), ""},
		{"unknown option", []string{"/var/storh/app", "/mnt/storh", "-o", "rw,bogus"}, base, `unknown mount option "bogus"`},
		{"unknown option with value", []string{"/var/storh/app", "/mnt/storh", "-o", "owner_id=1000"}, base, `unknown mount option "owner_id=1000"`},
		{"ownership options", []string{"/var/storh/app", "/mnt/storh", "-o", "uid=1000,gid=100,umask=027,allow_root,default_permissions"},
			flags("--uid=1000", "--gid=100", "--umask=027", "--allow-root", "--default-permissions"), ""},
		{"bad uid", []string{"/var/storh/app", "/mnt/storh", "-o", "uid=abc"}, base, `mount option uid=abc: "abc" is not a user id`},
		{"bad uid under -s", []string{"/var/storh/app", "/mnt/storh", "-s", "-o", "uid=abc"}, base, `mount option uid=abc`},
		{"log without a path", []string{"/var/storh/app", "/mnt/storh", "-o", "log="}, base, `unknown mount option "log="`},
		{"value flag without a value", []string{"/var/storh/app", "/mnt/storh", "-o", "max_buffer_mb"}, base, `unknown mount option "max_buffer_mb"`},
		{"bool flag with a value", []string{"/var/storh/app", "/mnt/storh", "-o", "debug=1"}, base, `unknown mount option "debug=1"`},
		{"hidden flag", []string{"/var/storh/app", "/mnt/storh", "-o", "detached_log=/x"}, base, `unknown mount option "detached_log=/x"`},
		{"option is not a flag", []string{"/var/storh/app", "/mnt/storh", "-o", "--read-only"}, base, `unknown mount option "--read-only"`},
		{"dashed flag name", []string{"/var/storh/app", "/mnt/storh", "-o", "read-only"}, base, `unknown mount option "read-only"`},
		{"-o without value", []string{"/var/storh/app", "/mnt/storh", "-o"}, base, "option -o needs a value"},
		{"namespace", []string{"/var/storh/app", "/mnt/storh", "-N", "/proc/1/ns/mnt"}, base, "not supported"},
		{"unknown flag", []string{"/var/storh/app", "/mnt/storh", "-w"}, base, "unknown option -w"},
		{"missing mountpoint", []string{"/var/storh/app", "-o", "ro"}, base, "need SOURCE and MOUNTPOINT"},
		{"three positionals", []string{"/a", "/b", "/c"}, base, "need SOURCE and MOUNTPOINT"},
		{"nothing", nil, base, "need SOURCE and MOUNTPOINT"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseHelperArgs(c.args)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("parseHelperArgs(%q) error = %v, want %q", c.args, err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseHelperArgs(%q): %v", c.args, err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("parseHelperArgs(%q) = %+v, want %+v", c.args, got, c.want)
			}
		})
	}
}

func TestChildMountArgs(t *testing.T) {
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	got, err := childMountArgs(helperRequest{Source: "root", Mountpoint: "/mnt/storh", Flags: []string{"--read-only", "--debug"}, LogPath: "x.log"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"storhfs", "mount", "--detached-log", filepath.Join(cwd, "x.log"),
		"--read-only", "--debug", filepath.Join(cwd, "root"), "/mnt/storh"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("childMountArgs = %q, want %q", got, want)
	}
	got, err = childMountArgs(helperRequest{Source: "/r", Mountpoint: "/m"})
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"storhfs", "mount", "--detached-log", os.DevNull, "/r", "/m"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("childMountArgs = %q, want %q", got, want)
	}
}

// A bad invocation and -f never start a mount.
func TestRunMountHelperWithoutMounting(t *testing.T) {
	cases := []struct {
		argv       []string
		wantStatus int
		wantErr    string
	}{
		{[]string{"mount.fuse.storhfs", "/r", "/m", "-o", "nope"}, exitHelperUsage, `storhfs: unknown mount option "nope"`},
		{[]string{"mount.fuse.storhfs"}, exitHelperUsage, "storhfs: need SOURCE and MOUNTPOINT"},
		{[]string{"mount.fuse.storhfs", "/r", "/m", "-f", "-o", "ro"}, 0, ""},
	}
	for _, c := range cases {
		var stderr bytes.Buffer
		status := runMountHelper(c.argv, &stderr)
		if status != c.wantStatus || !strings.HasPrefix(stderr.String(), c.wantErr) || strings.Count(stderr.String(), "\n") > 1 {
			t.Errorf("runMountHelper(%q) = %d %q, want %d and one line starting %q", c.argv, status, stderr.String(), c.wantStatus, c.wantErr)
		}
	}
}

func TestLastLine(t *testing.T) {
	for in, want := range map[string]string{
		"":                           "",
		"storhfs: x\n":               "storhfs: x",
		"warning\nstorhfs: broken\n": "storhfs: broken",
		"  \n\n":                     "",
	} {
		if got := lastLine(in); got != want {
			t.Errorf("lastLine(%q) = %q, want %q", in, got, want)
		}
	}
}
