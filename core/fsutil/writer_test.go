package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var writerName = regexp.MustCompile(`^[0-9]+\.[0-9a-f]{8}$`)

func TestWriterIdentityAndTemps(t *testing.T) {
	c := t.TempDir()
	w := NewWriter(c)
	if !writerName.MatchString(w.Name()) || !strings.HasPrefix(w.Name(), strconv.Itoa(os.Getpid())+".") {
		t.Fatalf("name %q", w.Name())
	}
	if w2 := NewWriter(c); w2.Name() == w.Name() {
		t.Fatal("two writers share a name")
	}
	for n := 1; n <= 3; n++ {
		want := "/d/." + w.Name() + "." + strconv.Itoa(n) + ".tmp"
		if got := w.TempPath("/d"); got != want {
			t.Fatalf("temp %d = %q, want %q", n, got, want)
		}
	}
	if _, ok := pidOfTemp(filepath.Base(w.TempPath(c))); !ok {
		t.Fatal("our temp names must match the sweep's PID pattern")
	}
}

func TestWriterRegister(t *testing.T) {
	c := filepath.Join(t.TempDir(), "pages")
	w := NewWriter(c)
	marker := c + "/.storh/writers/" + w.Name()
	if w.MarkerPath() != marker {
		t.Fatalf("marker path %q", w.MarkerPath())
	}
	w.Unregister() // never registered: nothing happens
	for i := 0; i < 2; i++ {
		if err := w.Register(); err != nil {
			t.Fatal(err)
		}
	}
	if fi, err := os.Stat(marker); err != nil || fi.Size() != 0 {
		t.Fatalf("marker: %v", err)
	}
	w.Unregister()
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("marker still there: %v", err)
	}

	// Register failure carries PHP's text.
	bad := filepath.Join(t.TempDir(), "file")
	os.WriteFile(bad, nil, 0o666)
	wb := NewWriter(bad)
	err := wb.Register()
	if err == nil || err.Error() != "Could not register storage writer marker: "+wb.MarkerPath() {
		t.Fatalf("err = %v", err)
	}
}

func TestWriteFileDurable(t *testing.T) {
	c := t.TempDir()
	w := NewWriter(c)
	final := c + "/data/ab/x.jsonc"
	for _, content := range []string{"first\n", "second, longer\n", ""} {
		if err := w.WriteFileDurable(final, []byte(content)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(final)
		if err != nil || string(got) != content {
			t.Fatalf("content %q, %v", got, err)
		}
	}
	assertNoTemps(t, c)
}

func TestWriteFileDurableFailures(t *testing.T) {
	c := t.TempDir()
	w := NewWriter(c)

	// mkdir fails: a file where the bucket directory should be.
	os.MkdirAll(c+"/data", 0o777)
	os.WriteFile(c+"/data/zz", nil, 0o666)
	err := w.WriteFileDurable(c+"/data/zz/x.jsonc", []byte("x"))
	if err == nil || err.Error() != "Could not create storage directory: "+c+"/data/zz" {
		t.Fatalf("mkdir: %v", err)
	}

	// open fails: the next temp name is taken by a directory.
	dir := c + "/data/ab"
	os.MkdirAll(dir, 0o777)
	probe := w.TempPath(dir) // consumes number n; the write below uses n+1
	n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(probe), "."+w.Name()+"."), ".tmp"))
	if err != nil {
		t.Fatal(err)
	}
	blocker := dir + "/." + w.Name() + "." + strconv.Itoa(n+1) + ".tmp"
	os.Mkdir(blocker, 0o777)
	err = w.WriteFileDurable(dir+"/x.jsonc", []byte("x"))
	if err == nil || err.Error() != "Could not open temporary storage file for writing: "+blocker {
		t.Fatalf("open: %v", err)
	}
	os.Remove(blocker)

	// rename fails: the final name is a non-empty directory; the temp is removed.
	os.MkdirAll(dir+"/busy.jsonc/sub", 0o777)
	err = w.WriteFileDurable(dir+"/busy.jsonc", []byte("x"))
	if err == nil || err.Error() != "Could not atomically replace storage file: "+dir+"/busy.jsonc" {
		t.Fatalf("rename: %v", err)
	}
	var fe *Error
	if !errors.As(err, &fe) || fe.Err == nil {
		t.Fatal("cause must be kept")
	}
	assertNoTemps(t, c)
}

func TestWriteFileDurableReadOnlyDir(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root: directory permissions are not enforced (open/rename/write failures are covered by the other failure tests)")
	}
	c := t.TempDir()
	dir := c + "/data/ab"
	os.MkdirAll(dir, 0o777)
	os.Chmod(dir, 0o555)
	defer os.Chmod(dir, 0o777)
	w := NewWriter(c)
	err := w.WriteFileDurable(dir+"/x.jsonc", []byte("x"))
	if err == nil || !strings.HasPrefix(err.Error(), "Could not open temporary storage file for writing: "+dir+"/.") {
		t.Fatalf("err = %v", err)
	}
	assertNoTemps(t, c)
}

func TestWriteFileDurableWriteErrorRemovesTemp(t *testing.T) {
	dir := t.TempDir()
	final := dir + "/x.jsonc"
	code, out := runHelper(t, "efbig", final)
	if code != 0 || !strings.HasPrefix(out, "Could not write storage file: "+dir+"/.") || !strings.HasSuffix(out, ".1.tmp") {
		t.Fatalf("helper exit %d, output %q", code, out)
	}
	if _, err := os.Stat(final); !os.IsNotExist(err) {
		t.Fatal("final file must not exist")
	}
	assertNoTemps(t, dir)
}

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/.storh/indexes/manifest.jsonc"
	if err := WriteAtomic(path, []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "{}\n" {
		t.Fatalf("content %q", got)
	}
	assertNoTemps(t, dir)
	os.MkdirAll(dir+"/busy/x", 0o777)
	if err := WriteAtomic(dir+"/busy", []byte("x")); err == nil || err.Error() != "Could not atomically replace storage file: "+dir+"/busy" {
		t.Fatalf("err = %v", err)
	}
	assertNoTemps(t, dir)
}

// WriteAtomicNoDirSync writes into an existing directory only: same
// content, temp names and error texts as WriteAtomic, no temp left behind.
func TestWriteAtomicNoDirSync(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/eq.jsonc"
	if err := WriteAtomicNoDirSync(path, []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "{}\n" {
		t.Fatalf("content %q", got)
	}
	os.MkdirAll(dir+"/busy/x", 0o777)
	if err := WriteAtomicNoDirSync(dir+"/busy", []byte("x")); err == nil || err.Error() != "Could not atomically replace storage file: "+dir+"/busy" {
		t.Fatalf("err = %v", err)
	}
	if err := WriteAtomicNoDirSync(dir+"/missing/eq.jsonc", []byte("x")); err == nil || !strings.HasPrefix(err.Error(), "Could not open temporary storage file for writing: "+dir+"/missing/.eq.jsonc.") {
		t.Fatalf("missing directory: err = %v", err)
	}
	assertNoTemps(t, dir)
}

func TestAppendDurable(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/range/6e.delta.jsonl"
	for _, line := range []string{"a\n", "b\n"} {
		if err := AppendDurable(path, []byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := os.ReadFile(path); string(got) != "a\nb\n" {
		t.Fatalf("content %q", got)
	}
	os.Mkdir(dir+"/isdir", 0o777)
	if err := AppendDurable(dir+"/isdir", []byte("x")); err == nil || err.Error() != "Could not open storage file for appending: "+dir+"/isdir" {
		t.Fatalf("err = %v", err)
	}
}

func TestParentDir(t *testing.T) {
	cases := map[string]string{
		"/r//c/data/ab/x.jsonc": "/r//c/data/ab",
		"/a//b":                 "/a",
		"/x":                    "/",
		"x":                     ".",
		"a/b/":                  "a",
	}
	for in, want := range cases {
		if got := parentDir(in); got != want {
			t.Errorf("parentDir(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFsyncDir(t *testing.T) {
	if err := FsyncDir(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if err := FsyncDir("/nonexistent/dir"); err == nil {
		t.Fatal("want error")
	}
}

// assertNoTemps fails if any *.tmp file or directory is left below root.
func assertNoTemps(t *testing.T, root string) {
	t.Helper()
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(d.Name(), ".tmp") {
			t.Errorf("temp left behind: %s", p)
		}
		return nil
	})
}
