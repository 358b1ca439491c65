package fusefs

import (
	"context"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// Rename paths that are decided before the kernel tree is touched.
func TestRenameRules(t *testing.T) {
	ctx := context.Background()
	s := newFakeStore(t, idA)
	c := newTestCollection(s)
	sf, _ := c.createScratch("x.tmp", 0)
	sf.data.set([]byte(`{"id":"` + idA + `","v":2}`))
	other := newTestCollection(s)

	cases := []struct {
		name, from, to string
		flags          uint32
		parent         *collectionNode
		want           syscall.Errno
	}{
		{"record onto another record name", idA + ".jsonc", idB + ".jsonc", 0, c, syscall.EPERM},
		{"record onto a non-scratch name", idA + ".jsonc", "notes.txt", 0, c, syscall.EPERM},
		{"scratch onto a name that is neither", "x.tmp", "notes.txt", 0, c, syscall.EPERM},
		{"scratch onto existing record with NOREPLACE", "x.tmp", idA + ".jsonc", unix.RENAME_NOREPLACE, c, syscall.EEXIST},
		{"exchange", "x.tmp", idA + ".jsonc", unix.RENAME_EXCHANGE, c, syscall.EINVAL},
		{"to another collection", "x.tmp", idA + ".jsonc", 0, other, syscall.EXDEV},
		{"missing scratch", "y.tmp", idA + ".jsonc", 0, c, syscall.ENOENT},
		{"scratch onto scratch", "x.tmp", "y~", 0, c, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			notified := 0
			c.m.runNotify = func(func()) { notified++ }
			if got := c.Rename(ctx, tc.from, tc.parent, tc.to, tc.flags); got != tc.want {
				t.Errorf("rename %s -> %s = %v, want %v", tc.from, tc.to, got, tc.want)
			}
			// EEXIST: the kernel asked because it holds the name as
			// missing; that entry is dropped (shownMissing).
			if tc.want == syscall.EEXIST && notified != 1 {
				t.Errorf("rename %s -> %s: %d invalidations queued, want 1", tc.from, tc.to, notified)
			}
			if s.content(idA) != `{"id":"`+idA+`"}` {
				t.Errorf("stored record changed: %s", s.content(idA))
			}
		})
	}
	if c.scratchFile("y~") != sf || c.scratchFile("x.tmp") != nil {
		t.Errorf("scratch-to-scratch rename did not move the file")
	}
}

func TestReadOnlyRefusesMutations(t *testing.T) {
	ctx := context.Background()
	s := newFakeStore(t, idA)
	c := newTestCollection(s)
	c.m.readOnly = true
	if errno := c.Unlink(ctx, idA+".jsonc"); errno != syscall.EROFS {
		t.Errorf("unlink: %v", errno)
	}
	if _, _, _, errno := c.Create(ctx, idB+".jsonc", 0, 0o644, nil); errno != syscall.EROFS {
		t.Errorf("create: %v", errno)
	}
	if errno := c.Rename(ctx, "a~", c, idB+".jsonc", 0); errno != syscall.EROFS {
		t.Errorf("rename: %v", errno)
	}
	if _, _, errno := c.openRecord(idA, syscall.O_WRONLY, &pageCache{}); errno != syscall.EROFS {
		t.Errorf("open for writing: %v", errno)
	}
	h, _, errno := c.openRecord(idA, syscall.O_RDONLY, &pageCache{})
	if errno != 0 {
		t.Fatalf("open for reading: %v", errno)
	}
	h.(*readHandle).Release(ctx)
	if s.content(idA) != `{"id":"`+idA+`"}` {
		t.Errorf("read-only collection changed")
	}
}

// A record renamed onto a scratch name (emacs' backup by rename) is copied
// there and stays; a second copy replaces the first unless NOREPLACE.
func TestRenameRecordOntoScratchCopies(t *testing.T) {
	ctx := context.Background()
	stored := `{"id":"` + idA + `"}`
	s := newFakeStore(t, idA)
	c := newTestCollection(s)
	c.m.runNotify = func(func()) {}
	rec, backup := idA+".jsonc", idA+".jsonc~"
	if errno := c.Rename(ctx, rec, c, backup, 0); errno != 0 {
		t.Fatalf("rename %s -> %s = %v, want success", rec, backup, errno)
	}
	sf := c.scratchFile(backup)
	if sf == nil || string(sf.data.data) != stored {
		t.Fatalf("backup scratch file = %v, want the record's content", sf)
	}
	if s.content(idA) != stored {
		t.Errorf("stored record changed: %s", s.content(idA))
	}
	if errno := c.Rename(ctx, rec, c, backup, unix.RENAME_NOREPLACE); errno != syscall.EEXIST {
		t.Errorf("rename onto the existing backup with NOREPLACE = %v, want EEXIST", errno)
	}
	if errno := c.Rename(ctx, rec, c, backup, 0); errno != 0 || c.scratchFile(backup) == sf {
		t.Errorf("second backup: %v, replaced %v", errno, c.scratchFile(backup) != sf)
	}
	if errno := c.Rename(ctx, idB+".jsonc", c, idB+".jsonc~", 0); errno != syscall.ENOENT {
		t.Errorf("rename of a missing record = %v, want ENOENT", errno)
	}
}
