package seglog

import (
	"os"
	"strings"
	"syscall"
	"testing"
)

// manifestState is manifest.jsonc's bytes and inode.
func manifestState(t *testing.T, dir string) (string, uint64) {
	t.Helper()
	path := dir + "/" + manifestName
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), fi.Sys().(*syscall.Stat_t).Ino
}

// An open rewrites manifest.jsonc with the replayed stats, as PHP does;
// when the file already holds exactly those bytes it is left in place
// (same inode). A torn tail that the open cuts off changes no stats.
func TestOpenRewritesManifestOnlyWhenStatsChange(t *testing.T) {
	root := t.TempDir()
	dir := root + "/events"
	l := openTest(t, root, 300)
	for i := 1; i <= 9; i++ {
		if _, err := l.Put(dataN(i), testID(i)); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	l = openTest(t, root, 300) // the stats of the active segment settle
	l.Close()
	want, ino := manifestState(t, dir)

	m, err := readManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	active := dir + "/segments/" + m.activeFile()
	f, err := os.OpenFile(active, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("120\t0000") // torn tail
	f.Close()
	l = openTest(t, root, 300)
	l.Close()
	if got, gotIno := manifestState(t, dir); got != want || gotIno != ino {
		t.Fatalf("unchanged stats: manifest rewritten (inode %d -> %d)\n%s\nwant\n%s", ino, gotIno, got, want)
	}

	// Wrong stats on disk (as a crash between an append and the next open
	// leaves them): the open writes the replayed ones.
	stale := strings.Replace(want, `"records":`, `"records":1`, 1)
	if stale == want {
		t.Fatal("test manifest has no records field")
	}
	if err := os.WriteFile(dir+"/"+manifestName, []byte(stale), 0o666); err != nil {
		t.Fatal(err)
	}
	_, staleIno := manifestState(t, dir)
	l = openTest(t, root, 300)
	if n := len(streamIDs(t, l.Stream, StreamQuery{})); n != 9 {
		t.Fatalf("%d records after reopen, want 9", n)
	}
	l.Close()
	got, gotIno := manifestState(t, dir)
	if got != want {
		t.Fatalf("stale stats not rewritten:\n%s\nwant\n%s", got, want)
	}
	if gotIno == staleIno {
		t.Fatal("stale manifest not replaced atomically (same inode)")
	}
}
