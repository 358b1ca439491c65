package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// hostileRoot builds root/c/data/ab/x.jsonc (a real record) beside a
// secret file outside root, and symlinks inside root that point at the
// secret or its directory in the ways an attacker who can write root would
// plant them.
func hostileRoot(t *testing.T) (root, secretDir string) {
	t.Helper()
	base := t.TempDir()
	root, secretDir = base+"/root", base+"/outside"
	for _, d := range []string{root + "/c/data/ab", secretDir + "/data/ab", secretDir + "/sub"} {
		if err := os.MkdirAll(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(root+"/c/data/ab/x.jsonc", []byte("real"), 0o666))
	must(os.WriteFile(secretDir+"/secret", []byte("SECRET"), 0o600))
	must(os.WriteFile(secretDir+"/data/ab/x.jsonc", []byte("SECRET"), 0o600))
	must(os.Symlink(secretDir+"/secret", root+"/c/data/ab/abs.jsonc"))         // absolute symlink, last component
	must(os.Symlink("x.jsonc", root+"/c/data/ab/rel.jsonc"))                   // relative symlink inside root
	must(os.Symlink("../../../../outside/secret", root+"/c/data/ab/up.jsonc")) // ..-escape
	must(os.Symlink(secretDir+"/data/ab", root+"/c/data/cd"))                  // bucket
	must(os.Symlink(secretDir+"/data", root+"/c2"))                            // collection (data inside)
	must(os.MkdirAll(root+"/c3", 0o777))
	must(os.Symlink(secretDir+"/data", root+"/c3/data")) // data/
	return root, secretDir
}

var symlinkedPaths = []string{
	"/c/data/ab/abs.jsonc",
	"/c/data/ab/rel.jsonc",
	"/c/data/ab/up.jsonc",
	"/c/data/cd/x.jsonc",
	"/c2/ab/x.jsonc",
	"/c3/data/ab/x.jsonc",
}

func isSymlinkErr(err error) bool {
	var se *SymlinkError
	return errors.As(err, &se) && errors.Is(err, syscall.ELOOP)
}

func TestNoSymlinkReads(t *testing.T) {
	root, _ := hostileRoot(t)
	if b, err := ReadFile(root + "/c/data/ab/x.jsonc"); err != nil || string(b) != "real" {
		t.Fatalf("plain file: %q, %v", b, err)
	}
	for _, rel := range symlinkedPaths {
		p := root + rel
		if b, err := ReadFile(p); !isSymlinkErr(err) {
			t.Errorf("ReadFile(%s) = %q, %v; want a SymlinkError", rel, b, err)
		}
		if fi, err := Stat(p); !isSymlinkErr(err) {
			t.Errorf("Stat(%s) = %v, %v; want a SymlinkError", rel, fi, err)
		}
		if fd, err := openNoSymlinks(unix.AT_FDCWD, p, unix.O_RDONLY, 0); err != unix.ELOOP {
			unix.Close(fd)
			t.Errorf("openNoSymlinks(%s): %v, want ELOOP", rel, err)
		}
		if fd, err := walkOpen(unix.AT_FDCWD, p, unix.O_RDONLY, 0); err != unix.ELOOP {
			unix.Close(fd)
			t.Errorf("walkOpen(%s): %v, want ELOOP", rel, err)
		}
	}
	for _, dir := range []string{"/c/data/cd", "/c2", "/c3/data"} {
		if _, err := ReadDir(root + dir); !isSymlinkErr(err) {
			t.Errorf("ReadDir(%s): %v, want a SymlinkError", dir, err)
		}
	}
	entries, err := ReadDir(root + "/c/data")
	if err != nil || len(entries) != 2 || entries[0].Name() != "ab" || entries[1].Name() != "cd" ||
		!entries[0].IsDir() || entries[1].IsDir() || entries[1].Type()&os.ModeSymlink == 0 {
		t.Fatalf("ReadDir(c/data) = %v, %v: want ab (dir), cd (symlink)", entries, err)
	}
}

// Below a directory descriptor, nothing may leave it: "..", absolute
// paths and symlinks all fail, in openat2 and in the component walk.
func TestOpenAtBeneath(t *testing.T) {
	root, _ := hostileRoot(t)
	dirfd, err := unix.Open(root+"/c/data", unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(dirfd)
	cases := []struct {
		rel  string
		want error // nil: opens
	}{
		{"ab/x.jsonc", nil},
		{"./ab/x.jsonc", nil},
		{"ab/abs.jsonc", unix.ELOOP},
		{"ab/up.jsonc", unix.ELOOP},
		{"cd/x.jsonc", unix.ELOOP},
		{"../data/ab/x.jsonc", unix.EXDEV},
		{"ab/../../c/data/ab/x.jsonc", unix.EXDEV},
		{root + "/c/data/ab/x.jsonc", unix.EXDEV},
	}
	for _, open := range []struct {
		name string
		fn   func(int, string, int, uint32) (int, error)
	}{{"OpenAt", OpenAt}, {"walkOpen", walkOpen}} {
		for _, c := range cases {
			fd, err := open.fn(dirfd, c.rel, unix.O_RDONLY, 0)
			if err == nil {
				unix.Close(fd)
			}
			if err != c.want {
				t.Errorf("%s(%q) = %v, want %v", open.name, c.rel, err, c.want)
			}
		}
	}
}

// Writes never land outside root: a symlinked bucket, collection or data/
// fails the write, and the target outside stays as it was.
func TestNoSymlinkWrites(t *testing.T) {
	root, secretDir := hostileRoot(t)
	w := NewWriter(root + "/c")
	if err := AppendDurable(root+"/c/data/ab/abs.jsonc", []byte("x")); !isSymlinkErr(err) {
		t.Errorf("AppendDurable to a symlink: %v, want a SymlinkError", err)
	}
	for _, rel := range []string{"/c/data/cd/new.jsonc", "/c2/ab/new.jsonc", "/c3/data/ab/new.jsonc", "/c3/data/zz/new.jsonc"} {
		p := root + rel
		if err := w.WriteFileDurable(p, []byte("x")); !isSymlinkErr(err) {
			t.Errorf("WriteFileDurable(%s): %v, want a SymlinkError", rel, err)
		}
		if err := WriteAtomic(p, []byte("x")); !isSymlinkErr(err) {
			t.Errorf("WriteAtomic(%s): %v, want a SymlinkError", rel, err)
		}
		if err := AppendDurable(p, []byte("x")); !isSymlinkErr(err) {
			t.Errorf("AppendDurable(%s): %v, want a SymlinkError", rel, err)
		}
		if err := MkdirAll(parentDir(p) + "/sub"); !isSymlinkErr(err) {
			t.Errorf("MkdirAll(%s/sub): %v, want a SymlinkError", parentDir(rel), err)
		}
	}
	if _, err := OpenLock(root+"/c2/.storh/write.lock", os.O_RDWR); !isSymlinkErr(err) {
		t.Errorf("OpenLock through a symlinked collection: %v", err)
	}
	if err := Rename(root+"/c/data/ab/x.jsonc", root+"/c/data/cd/x.jsonc"); !isSymlinkErr(err) {
		t.Errorf("Rename into a symlinked bucket: %v", err)
	}
	if err := Remove(root + "/c/data/cd/x.jsonc"); !isSymlinkErr(err) {
		t.Errorf("Remove through a symlinked bucket: %v", err)
	}
	if err := RemoveAll(root + "/c3/data/ab"); !isSymlinkErr(err) {
		t.Errorf("RemoveAll through a symlinked data/: %v", err)
	}

	// Replacing a symlinked record replaces the link, never its target.
	if err := w.WriteFileDurable(root+"/c/data/ab/abs.jsonc", []byte("new")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(root + "/c/data/ab/abs.jsonc"); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("the link was not replaced by a file: %v", err)
	}
	// RemoveAll of a tree holding a symlinked directory removes the link only.
	os.MkdirAll(root+"/c/.storh/indexes", 0o777)
	os.Symlink(secretDir+"/sub", root+"/c/.storh/indexes/link")
	if err := RemoveAll(root + "/c/.storh"); err != nil {
		t.Fatal(err)
	}
	var outside []string
	filepath.WalkDir(secretDir, func(p string, d os.DirEntry, err error) error {
		outside = append(outside, p[len(secretDir):])
		return nil
	})
	want := []string{"", "/data", "/data/ab", "/data/ab/x.jsonc", "/secret", "/sub"}
	if len(outside) != len(want) {
		t.Fatalf("outside root now holds %v, want %v", outside, want)
	}
	for i := range want {
		if outside[i] != want[i] {
			t.Fatalf("outside root now holds %v, want %v", outside, want)
		}
	}
	for _, f := range []string{"/secret", "/data/ab/x.jsonc"} {
		if b, _ := os.ReadFile(secretDir + f); string(b) != "SECRET" {
			t.Fatalf("%s changed: %q", f, b)
		}
	}
}

func TestResolveRoot(t *testing.T) {
	base := t.TempDir()
	os.MkdirAll(base+"/real/root", 0o777)
	os.Symlink(base+"/real", base+"/link")
	if got, err := ResolveRoot(base + "/real/root"); err != nil || got != base+"/real/root" {
		t.Fatalf("plain root: %q, %v", got, err)
	}
	if got, err := ResolveRoot(base + "/link/root"); err != nil || got != base+"/real/root" {
		t.Fatalf("symlinked root: %q, %v", got, err)
	}
	if got, err := ResolveRoot(base + "/missing"); err != nil || got != base+"/missing" {
		t.Fatalf("missing root: %q, %v (the caller reports it)", got, err)
	}
	if got, err := ResolveRoot(base + "/link/new/root"); err != nil || got != base+"/real/new/root" {
		t.Fatalf("root still to be made below a symlink: %q, %v", got, err)
	}
}

// Stat describes what it does not refuse exactly as os.Lstat does.
func TestStatMatchesLstat(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(dir+"/f", []byte("12345"), 0o640)
	os.Mkdir(dir+"/d", 0o1755)
	os.Chmod(dir+"/d", 0o1755|os.ModeSticky)
	unix.Mkfifo(dir+"/p", 0o600)
	for _, name := range []string{"f", "d", "p"} {
		want, err := os.Lstat(dir + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Stat(dir + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if got.Name() != want.Name() || got.Mode() != want.Mode() || got.Size() != want.Size() ||
			!got.ModTime().Equal(want.ModTime()) || got.IsDir() != want.IsDir() {
			t.Errorf("%s: Stat %v %v %d %v, Lstat %v %v %d %v", name, got.Name(), got.Mode(), got.Size(), got.ModTime(),
				want.Name(), want.Mode(), want.Size(), want.ModTime())
		}
		if st, ok := got.Sys().(*syscall.Stat_t); !ok || st.Ino != want.Sys().(*syscall.Stat_t).Ino {
			t.Errorf("%s: Sys() = %#v", name, got.Sys())
		}
	}
}

// The open-time sweep deletes stale markers and dead writers' temps; a
// symlinked writers/ or bucket must not make it delete files outside.
func TestSweepNeverFollowsSymlinks(t *testing.T) {
	c, outside := t.TempDir(), t.TempDir()
	os.MkdirAll(c+"/.storh", 0o777)
	os.MkdirAll(c+"/data", 0o777)
	os.WriteFile(outside+"/2147483646.0123abcd", nil, 0o600)  // a stale marker name
	os.WriteFile(outside+"/.2147483646.ab.1.tmp", nil, 0o600) // a dead writer's temp name
	os.Symlink(outside, c+"/.storh/writers")
	os.Symlink(outside, c+"/data/ab")
	os.Symlink(outside+"/.2147483646.ab.1.tmp", c+"/data/.2147483646.ab.2.tmp")
	err := SweepOnOpen(c, time.Now())
	if !isSymlinkErr(err) {
		t.Errorf("SweepOnOpen with a symlinked writers/: %v, want a SymlinkError", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 2 {
		t.Fatalf("the sweep deleted files outside the collection: %v left", entries)
	}
	if _, err := os.Lstat(c + "/data/.2147483646.ab.2.tmp"); err != nil {
		t.Errorf("a symlink named like a temp was removed: %v", err)
	}
	w := NewWriter(c)
	if err := w.Register(); !isSymlinkErr(err) {
		t.Errorf("Register through a symlinked writers/: %v", err)
	}
	os.MkdirAll(c+"/x/.storh", 0o777)
	os.Symlink(outside+"/2147483646.0123abcd", c+"/x/.storh/write.lock")
	if _, err := OpenLock(c+"/x/.storh/write.lock", os.O_RDWR); !isSymlinkErr(err) {
		t.Errorf("OpenLock of a symlinked lock file: %v", err)
	}
}
