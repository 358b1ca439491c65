package fusectl

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const sampleMountinfo = `22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw
42 23 0:39 / /sys/fs/fuse/connections rw,relatime - fusectl fusectl rw
60 22 0:57 / /mnt/storh rw,nosuid,nodev,relatime shared:30 - fuse.storhfs /var/storh/app rw,user_id=0,group_id=0
61 22 0:58 / /mnt/with\040space rw,nosuid,nodev - fuse.storhfs /var/storh/a\040b rw,user_id=0,group_id=0
62 22 0:59 / /mnt/other rw,nosuid,nodev - fuse.sshfs host:/ rw,user_id=0,group_id=0
63 22 0:60 / /mnt/stacked rw - fuse.sshfs host:/ rw
64 63 0:61 / /mnt/stacked rw - fuse.storhfs /data rw
65 22 0:62 / /mnt/covered rw - fuse.storhfs /data rw
66 65 0:63 / /mnt/covered rw - tmpfs tmpfs rw
`

func parseSample(t *testing.T) []Entry {
	t.Helper()
	entries, err := ParseMountinfo(strings.NewReader(sampleMountinfo))
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

func TestParseMountinfo(t *testing.T) {
	entries := parseSample(t)
	if len(entries) != 9 {
		t.Fatalf("got %d entries, want 9", len(entries))
	}
	want := Entry{Major: 0, Minor: 57, Mountpoint: "/mnt/storh", FsType: "fuse.storhfs", Source: "/var/storh/app"}
	if entries[2] != want {
		t.Errorf("entry 2 = %+v, want %+v", entries[2], want)
	}
	if e := entries[3]; e.Mountpoint != "/mnt/with space" || e.Source != "/var/storh/a b" {
		t.Errorf("escapes not decoded: %+v", e)
	}
}

func TestParseMountinfoRejectsGarbage(t *testing.T) {
	for _, line := range []string{"1 2 3", "1 2 x:y / /m rw - ext4 /dev/x rw", "1 2 0:1 / /m rw ext4"} {
		if _, err := ParseMountinfo(strings.NewReader(line + "\n")); err == nil {
			t.Errorf("%q parsed without error", line)
		}
	}
}

func TestStorhfsMinor(t *testing.T) {
	entries := parseSample(t)
	cases := []struct {
		mountpoint string
		minor      uint32
		err        string
	}{
		{"/mnt/storh", 57, ""},
		{"/mnt/with space", 58, ""},
		{"/mnt/stacked", 61, ""}, // the topmost mount counts
		{"/mnt/other", 0, "fuse.sshfs"},
		{"/mnt/covered", 0, "tmpfs"}, // a storhfs mount hidden below another is not reachable by path
		{"/", 0, "ext4"},
		{"/mnt/none", 0, "not mounted"},
	}
	for _, c := range cases {
		minor, err := storhfsMinor(entries, c.mountpoint)
		switch {
		case c.err == "" && (err != nil || minor != c.minor):
			t.Errorf("%s: minor %d, %v; want %d", c.mountpoint, minor, err, c.minor)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want one naming %q", c.mountpoint, err, c.err)
		}
	}
	if _, err := storhfsMinor(entries, "/mnt/none"); !errors.Is(err, ErrNotMounted) {
		t.Errorf("unmounted path: %v, want ErrNotMounted", err)
	}
}

func TestConnectionAbortWritesOne(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "57"), 0o755); err != nil {
		t.Fatal(err)
	}
	abort := filepath.Join(dir, "57", "abort")
	if err := os.WriteFile(abort, nil, 0o200); err != nil {
		t.Fatal(err)
	}
	c := Connection{Dir: dir, Minor: 57}
	if !c.Exists() {
		t.Fatal("connection 57 not found")
	}
	if err := c.Abort(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(abort); string(got) != "1" {
		t.Errorf("abort file holds %q, want 1", got)
	}
}

func TestConnectionAbortMissing(t *testing.T) {
	c := Connection{Dir: t.TempDir(), Minor: 9}
	if c.Exists() {
		t.Fatal("a missing connection exists")
	}
	err := c.Abort()
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "connection 9") {
		t.Errorf("abort of a missing connection: %v, want ErrNotExist naming it", err)
	}
}

func TestMountsReadsThisProcess(t *testing.T) {
	entries, err := Mounts()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := Lookup(entries, "/"); !ok {
		t.Error("/proc/self/mountinfo has no root mount")
	}
}
