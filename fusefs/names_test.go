package fusefs

import (
	"strings"
	"syscall"
	"testing"

	"github.com/zeebo/xxh3"
)

func TestRecordID(t *testing.T) {
	cases := []struct {
		name string
		id   string
		ok   bool
	}{
		{"0190a1b2-c3d4-7e5f-8a6b-2d5dba6274da.jsonc", "0190a1b2-c3d4-7e5f-8a6b-2d5dba6274da", true},
		{"0190A1B2-C3D4-7E5F-8A6B-2D5DBA6274DA.jsonc", "0190A1B2-C3D4-7E5F-8A6B-2D5DBA6274DA", true},
		{"0190a1b2-c3d4-7e5f-8a6b-2d5dba6274da.json", "", false},
		{"0190a1b2-c3d4-4e5f-8a6b-2d5dba6274da.jsonc", "", false}, // v4
		{"0190a1b2-c3d4-7e5f-8a6b-2d5dba6274da.jsonc.jsonc", "", false},
		{".jsonc", "", false},
		{"", "", false},
		{"x.jsonc", "", false},
	}
	for _, c := range cases {
		id, ok := recordID(c.name)
		if id != c.id || ok != c.ok {
			t.Errorf("recordID(%q) = %q, %v; want %q, %v", c.name, id, ok, c.id, c.ok)
		}
	}
}

func TestIsScratchName(t *testing.T) {
	rec := "0190a1b2-c3d4-7e5f-8a6b-2d5dba6274da.jsonc"
	yes := []string{
		"4913", "5036", "." + rec + ".swp", "." + rec + ".swo", "." + rec + ".swx", rec + "~",
		"sedAb12Cd", "." + rec + ".a1B2c3", "#" + rec + "#", ".#" + rec, "x.tmp", "tmp",
		".tmp", "~",
	}
	no := []string{
		"", ".", "..", rec, "notes.txt", "README", "sed", "sedabc", "." + rec, ".x.abc",
		".x.abcdefg", "#x", "x#", "tmpfile", ".storh", "data", "a.swp",
	}
	for _, n := range yes {
		if !isScratchName(n) {
			t.Errorf("isScratchName(%q) = false, want true", n)
		}
	}
	for _, n := range no {
		if isScratchName(n) {
			t.Errorf("isScratchName(%q) = true, want false", n)
		}
	}
}

func TestInodeNumbers(t *testing.T) {
	id := "0190a1b2-c3d4-7e5f-8a6b-2d5dba6274da"
	a, b := recordIno("pages", id), recordIno("pages", id)
	if a != b {
		t.Fatalf("recordIno not stable: %d != %d", a, b)
	}
	if a == recordIno("other", id) {
		t.Errorf("same id in two collections shares an inode number")
	}
	// Pinned: inode numbers must not change between versions (stable
	// across remounts, rsync --inplace, find -inum).
	if want := uint64(0x1a59bbe6f3290e51); a != want {
		t.Errorf("recordIno(pages, %s) = %#x, want %#x", id, a, want)
	}
	long := strings.Repeat("ns/", 80) + "pages" // past the stack buffer
	if recordIno(long, id) != xxh3.HashString(long+"\x00"+id)&hashMask {
		t.Errorf("recordIno of a long collection path differs from the hash of its key")
	}
	if a < 2 || a&(scratchInoBase|dirInoBit) != 0 {
		t.Errorf("record ino %x outside the record range", a)
	}
	if d := dirIno("pages"); d&dirInoBit == 0 || d&scratchInoBase != 0 {
		t.Errorf("dir ino %x outside the directory range", d)
	}
}

// The safe-save and lock names of common tools are scratch names; names
// that only resemble them are not.
func TestIsScratchNameOfTools(t *testing.T) {
	rec := "0190a1b2-c3d4-7e5f-8a6b-2d5dba6274da.jsonc"
	cases := []struct {
		tool, name string
		scratch    bool
	}{
		{"GIO", ".goutputstream-Q2XK7Z", true},
		{"GIO", ".goutputstream-a1b2c3", true},
		{"GIO, too short", ".goutputstream-a1b2c", false},
		{"GIO, too long", ".goutputstream-a1b2c3d", false},
		{"JetBrains temp", rec + "___jb_tmp___", true},
		{"JetBrains old", rec + "___jb_old___", true},
		{"JetBrains suffix alone", "___jb_tmp___", false},
		{"Python mkstemp", "tmpk3_9zq0a", true},
		{"Python mkstemp", "tmp________", true},
		{"Python, upper case", "tmpK3_9ZQ0A", false},
		{"Python, 7 chars", "tmpk3_9zq0", false},
		{"Python, 9 chars", "tmpk3_9zq0ab", false},
		{"new", rec + ".new", true},
		{"bak", rec + ".bak", true},
		{"orig", rec + ".orig", true},
		{"part", rec + ".part", true},
		{"suffix alone", ".bak", false},
		{"LibreOffice lock", ".~lock." + rec + "#", true},
		{"LibreOffice, no name", ".~lock.#", false},
		{"LibreOffice, no #", ".~lock." + rec, false},
		{"emacs backup", rec + "~", true},
		{"a record", rec, false},
		{"a note", "notes.txt", false},
		{"newer", "x.newer", false},
	}
	for _, c := range cases {
		if got := isScratchName(c.name); got != c.scratch {
			t.Errorf("%s: isScratchName(%q) = %v, want %v", c.tool, c.name, got, c.scratch)
		}
	}
}

func TestNameErrno(t *testing.T) {
	if nameErrno(strings.Repeat("x", 255)) != 0 || nameErrno(strings.Repeat("x", 256)) != syscall.ENAMETOOLONG {
		t.Fatal("NAME_MAX is 255 bytes")
	}
}
