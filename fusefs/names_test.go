package fusefs

import (
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/zeebo/xxh3"

	"github.com/storhfs/storhfs/core/uuidv7"
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
	if want := uint64(0x2c9e9d96da48cba2); a != want {
		t.Errorf("recordIno(pages, %s) = %#x, want %#x", id, a, want)
	}
	// Upper case is another name of no order: it hashes, as does a long
	// collection path (past the stack buffer).
	upper := strings.ToUpper(id)
	if got, want := recordIno("pages", upper), xxh3.HashString("pages\x00"+upper)&hashMask; got != want || got == a {
		t.Errorf("recordIno(pages, %s) = %#x, want the hash %#x (and not %#x)", upper, got, want, a)
	}
	long := strings.Repeat("ns/", 80) + "pages"
	if recordIno(long, "x") != xxh3.HashString(long+"\x00x")&hashMask {
		t.Errorf("recordIno of a long collection path differs from the hash of its key")
	}
	for _, ino := range []uint64{a, recordIno("pages", upper), recordIno("", "00000000-0000-7000-8000-000000000000")} {
		if ino < 2 || ino&(scratchInoBase|dirInoBit) != 0 {
			t.Errorf("record ino %#x outside the record range", ino)
		}
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

// Record inode numbers follow the ids, so that gnulib's fts (grep -r, find),
// which visits a big directory in d_ino order, visits it in name order: a
// burst of ids within one millisecond (PHP counts them up), then later
// milliseconds, each number above the last and all distinct.
func TestInodeNumbersFollowIds(t *testing.T) {
	ms := int64(1_700_000_000_000)
	gen := uuidv7.NewGenerator(func() int64 { return ms }, nil)
	var ids []string
	for i := 0; i < 30000; i++ {
		if i%10000 == 0 {
			ms += 3 // a new millisecond: fresh random entropy
		}
		id, err := gen.New()
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if !slices.IsSorted(ids) {
		t.Fatal("the generator's ids are not in order")
	}
	for _, collection := range []string{"pages", "ns/events"} {
		seen := make(map[uint64]string, len(ids))
		var last uint64
		wrapped := 0 // the collection's offset may wrap the range once
		for _, id := range ids {
			ino := recordIno(collection, id)
			if other, ok := seen[ino]; ok {
				t.Fatalf("%s: %s and %s share inode %#x", collection, id, other, ino)
			}
			seen[ino] = id
			if ino <= last {
				wrapped++
			}
			last = ino
		}
		if wrapped > 1 {
			t.Errorf("%s: inode numbers fell %d times along %d ids in order", collection, wrapped, len(ids))
		}
	}
}

// idOrderKey reads only lowercase UUID text; anything else hashes.
func TestIdOrderKey(t *testing.T) {
	key, ok := idOrderKey("018bcfe5-6800-7234-9678-9abcdef011ff")
	if want := uint64(0x18bcfe5_6800&idTimeMask)<<idTailBits | 0x3def011ff&idTailMask; !ok || key != want {
		t.Errorf("idOrderKey = %#x, %v; want %#x", key, ok, want)
	}
	for _, id := range []string{
		"", "018bcfe5-6800-7234-9678-9abcdef011f", "018bcfe5-6800-7234-9678-9abcdef011ff0",
		"018BCFE5-6800-7234-9678-9ABCDEF011FF", "018bcfe5x6800-7234-9678-9abcdef011ff",
		"018bcfe5-6800-7234-9678-9abcdef011fg", "018bcfe5-6800-7234-9678-9abcdef011f\xff",
	} {
		if _, ok := idOrderKey(id); ok {
			t.Errorf("idOrderKey(%q) ok, want a hash", id)
		}
	}
}

// FuzzRecordIno: any collection and name gives a number in the record
// range, the same each time; ordered keys only for lowercase UUID text.
func FuzzRecordIno(f *testing.F) {
	f.Add("pages", "0190a1b2-c3d4-7e5f-8a6b-2d5dba6274da")
	f.Add("pages", "0190A1B2-C3D4-7E5F-8A6B-2D5DBA6274DA")
	f.Add("", "ffffffff-ffff-7fff-bfff-ffffffffffff")
	f.Add("a/b", "--------------------------------")
	f.Fuzz(func(t *testing.T, collection, id string) {
		ino := recordIno(collection, id)
		if ino < 2 || ino&(scratchInoBase|dirInoBit) != 0 || ino != recordIno(collection, id) {
			t.Fatalf("recordIno(%q, %q) = %#x", collection, id, ino)
		}
		if _, ok := idOrderKey(id); ok && (len(id) != uuidv7.TextLen || strings.ContainsAny(id, "ABCDEF")) {
			t.Fatalf("idOrderKey(%q) ok", id)
		}
	})
}
