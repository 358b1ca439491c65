package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/storhfs/storhfs/internal/corpus"

	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/storhfs/storhfs/shard"
)

// TestMain lets the test binary act as the floor server, so that the mount
// test reads a floor served by another process, as the bench does.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == floorServeArg {
		if err := runFloorServer(os.Args[2:], os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "floor server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// smallCollection generates n records and returns the collection directory
// with the names the mount lists and the stored bytes of each.
func smallCollection(t *testing.T, n int) (dir string, names []string, content map[string][]byte) {
	t.Helper()
	root := t.TempDir()
	if err := generateRecords(root, recordsCollection, n); err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(root, recordsCollection)
	content = map[string][]byte{}
	err := shard.Walk(dir, "", func(e shard.Entry) error {
		b, err := os.ReadFile(e.Path)
		names = append(names, e.ID+".jsonc")
		content[e.ID+".jsonc"] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != n {
		t.Fatalf("walked %d records, generated %d", len(names), n)
	}
	return dir, names, content
}

func TestFloorTreeServesTheCollection(t *testing.T) {
	dir, names, content := smallCollection(t, 120)
	tree, err := loadFloorTree(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	root := &floorDir{tree: tree}

	// Readdir: every name once, in name order, with distinct inode numbers.
	ds, errno := root.Readdir(ctx)
	if errno != 0 {
		t.Fatal(errno)
	}
	var listed []string
	inos := map[uint64]bool{1: true}
	for ds.HasNext() {
		e, errno := ds.Next()
		if errno != 0 {
			t.Fatal(errno)
		}
		if e.Mode != syscall.S_IFREG || inos[e.Ino] {
			t.Fatalf("entry %s: mode %o, ino %d (taken: %v)", e.Name, e.Mode, e.Ino, inos[e.Ino])
		}
		inos[e.Ino] = true
		listed = append(listed, e.Name)
	}
	if !slices.Equal(listed, names) || !slices.IsSorted(listed) {
		t.Fatalf("listed %d names, want the %d the mount lists, sorted", len(listed), len(names))
	}
	// A second listing starts again from the first name.
	if ds2, _ := root.Readdir(ctx); !ds2.HasNext() {
		t.Fatal("second listing is empty")
	}

	var dirAttr fuse.AttrOut
	if root.Getattr(ctx, nil, &dirAttr) != 0 || dirAttr.Mode != floorDirPerm || dirAttr.Nlink != 2 {
		t.Errorf("directory attributes %+v", dirAttr.Attr)
	}

	// Every file: attributes from its stat, bytes read in odd-sized pieces.
	for _, name := range names {
		i, ok := tree.lookup(name)
		if !ok {
			t.Fatalf("lookup %s failed", name)
		}
		node := &floorFileNode{f: &tree.files[i], mode: floorOpen}
		fi, err := os.Stat(shard.RecordPath(dir, strings.TrimSuffix(name, ".jsonc")))
		if err != nil {
			t.Fatal(err)
		}
		var attr fuse.AttrOut
		if node.Getattr(ctx, nil, &attr) != 0 {
			t.Fatal("getattr failed")
		}
		if attr.Size != uint64(len(content[name])) || attr.Mode != floorFilePerm ||
			attr.Mtime != uint64(fi.ModTime().Unix()) || attr.Mtimensec != uint32(fi.ModTime().Nanosecond()) {
			t.Fatalf("%s: attributes %+v, file size %d mtime %v", name, attr.Attr, len(content[name]), fi.ModTime())
		}
		if _, flags, errno := node.Open(ctx, syscall.O_RDONLY); errno != 0 || flags != fuse.FOPEN_KEEP_CACHE|fuse.FOPEN_NOFLUSH {
			t.Fatalf("open for reading: flags %x, %v", flags, errno)
		}
		if _, _, errno := node.Open(ctx, syscall.O_WRONLY); errno != syscall.EROFS {
			t.Fatalf("open for writing: %v, want EROFS", errno)
		}
		noOpen := &floorFileNode{f: node.f, mode: floorNoOpen}
		noOpenFlush := &floorFileNode{f: node.f, mode: floorNoOpenFlush}
		for _, n := range []*floorFileNode{noOpen, noOpenFlush} {
			if _, _, errno := n.Open(ctx, syscall.O_RDONLY); errno != syscall.ENOSYS {
				t.Fatalf("%s: open for reading: %v, want ENOSYS", n.mode, errno)
			}
		}
		if node.Flush(ctx, nil) != 0 || noOpen.Flush(ctx, nil) != syscall.ENOSYS || noOpenFlush.Flush(ctx, nil) != 0 {
			t.Fatal("flush: want 0, ENOSYS in mode no-open, 0 in no-open-flush")
		}
		got := readAllFromNode(t, node, 37)
		if !bytes.Equal(got, content[name]) {
			t.Fatalf("%s: read %q, want %q", name, got, content[name])
		}
	}
	for _, missing := range []string{"", "x.jsonc", strings.TrimSuffix(names[0], ".jsonc"), names[0] + "~"} {
		if _, ok := tree.lookup(missing); ok {
			t.Errorf("lookup %q found a file", missing)
		}
	}
	var total int64
	for _, b := range content {
		total += int64(len(b))
	}
	if tree.totalBytes() != total {
		t.Errorf("totalBytes %d, want %d", tree.totalBytes(), total)
	}
}

// readAllFromNode reads node's content the way the kernel does: chunks of
// chunk bytes at increasing offsets until a short read.
func readAllFromNode(t *testing.T, node *floorFileNode, chunk int) []byte {
	t.Helper()
	var out []byte
	buf := make([]byte, chunk)
	for off := int64(0); ; {
		res, errno := node.Read(context.Background(), nil, buf, off)
		if errno != 0 {
			t.Fatalf("read at %d: %v", off, errno)
		}
		b, status := res.Bytes(make([]byte, chunk))
		if !status.Ok() {
			t.Fatalf("read result at %d: %v", off, status)
		}
		out = append(out, b...)
		off += int64(len(b))
		if len(b) < chunk {
			return out
		}
	}
}

func TestReadAt(t *testing.T) {
	data := []byte("0123456789")
	tests := []struct {
		size int
		off  int64
		want string
	}{
		{4, 0, "0123"},
		{4, 8, "89"},
		{20, 0, "0123456789"},
		{4, 10, ""},
		{4, 11, ""},
		{4, -1, ""},
		{0, 3, ""},
	}
	for _, tc := range tests {
		if got := readAt(data, make([]byte, tc.size), tc.off); string(got) != tc.want {
			t.Errorf("readAt(%d bytes at %d) = %q, want %q", tc.size, tc.off, got, tc.want)
		}
	}
}

func TestNewFloorTreeSortsAndRejectsDuplicates(t *testing.T) {
	dir, err := os.Stat(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tree, err := newFloorTree([]floorFile{{name: "b"}, {name: "a"}, {name: "c"}}, dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"a", "b", "c"} {
		if tree.files[i].name != want || tree.entries[i].Name != want || tree.byName[want] != i || tree.entries[i].Ino != floorIno(i) {
			t.Errorf("position %d: file %s, entry %s, index %d", i, tree.files[i].name, tree.entries[i].Name, tree.byName[want])
		}
	}
	if _, err := newFloorTree([]floorFile{{name: "a"}, {name: "a"}}, dir); err == nil {
		t.Error("duplicate names accepted")
	}
}

// canMount skips the test unless this process can mount FUSE.
func canMount(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/dev/fuse"); err != nil {
		corpus.Missing(t, fmt.Sprintf("no /dev/fuse, cannot mount the floor: %v", err))
	}
	if os.Geteuid() != 0 {
		if _, err := exec.LookPath("fusermount3"); err != nil {
			corpus.Missing(t, "not root and no fusermount3: cannot mount the floor")
		}
	}
}

func TestFloorMount(t *testing.T) {
	canMount(t)
	for _, o := range []floorOptions{storhfsFloor, {timeout: time.Hour, mode: floorNoOpen}, {timeout: time.Hour, mode: floorNoOpenFlush}} {
		t.Run(fmt.Sprintf("variant=%q", o), func(t *testing.T) { testFloorMount(t, o) })
	}
}

// testFloorMount mounts a small collection on the floor with options o
// from another process and reads it back.
func testFloorMount(t *testing.T, o floorOptions) {
	dir, names, content := smallCollection(t, 150)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	mnt := t.TempDir()
	m, err := startFloor(self, dir, mnt, o)
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			_ = m.stop()
		}
	}()
	if !isMounted(mnt) {
		t.Fatalf("%s not in mountinfo after the ready line", mnt)
	}

	entries, err := os.ReadDir(mnt)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, e := range entries {
		listed = append(listed, e.Name())
	}
	if !slices.Equal(listed, names) {
		t.Fatalf("mounted listing has %d names, want %d", len(listed), len(names))
	}
	for _, name := range names {
		path := filepath.Join(mnt, name)
		for range 2 { // the second read comes from the kept page cache
			got, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(got, content[name]) {
				t.Fatalf("%s: read %q, %v; want %q", name, got, err, content[name])
			}
		}
		if fi, err := os.Stat(path); err != nil || fi.Size() != int64(len(content[name])) || fi.Mode() != 0o644 {
			t.Fatalf("stat %s: %v, %v", name, fi, err)
		}
	}
	if _, err := os.Stat(filepath.Join(mnt, "missing.jsonc")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stat of a missing name: %v", err)
	}
	if err := os.WriteFile(filepath.Join(mnt, names[0]), []byte("x"), 0o644); err == nil {
		t.Error("write to the floor succeeded")
	}

	// The bench's own sides count the same on the floor as on the files.
	_, lsCount, err := tool([]string{"ls", "-l", mnt}, "", countSuffix, ".jsonc")(0)
	if err != nil || lsCount != int64(len(names)) {
		t.Errorf("ls -l on the floor: %d names, %v", lsCount, err)
	}
	_, grepOnFloor, err := tool([]string{"grep", "-r", needle, mnt}, "", countLines, "")(0)
	if err != nil {
		t.Fatal(err)
	}
	_, grepOnFiles, err := tool([]string{"grep", "-r", needle, shard.DataDir(dir)}, "", countLines, "")(0)
	if err != nil || grepOnFloor != grepOnFiles || grepOnFloor == 0 {
		t.Errorf("grep -r: %d lines on the floor, %d on the files (%v)", grepOnFloor, grepOnFiles, err)
	}

	start := time.Now()
	if err := m.stop(); err != nil {
		t.Fatal(err)
	}
	stopped = true
	if isMounted(mnt) {
		t.Fatalf("%s still mounted after stop (%v)", mnt, time.Since(start))
	}
}

// requestCounts are the OPEN, FLUSH and RELEASE requests of a floor's debug log.
type requestCounts struct{ open, flush, release int }

// countRequests counts them in log, leaving out go-fuse's own probe file
// at mount time (node ^0).
func countRequests(log string) requestCounts {
	var got requestCounts
	for _, line := range strings.Split(log, "\n") {
		// "rx 12: OPEN n3 {...}" (go-fuse's debug format)
		_, rest, ok := strings.Cut(line, "rx ")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) < 3 || f[2] == fmt.Sprintf("n%d", ^uint64(0)) {
			continue
		}
		switch f[1] {
		case "OPEN":
			got.open++
		case "FLUSH":
			got.flush++
		case "RELEASE":
			got.release++
		}
	}
	return got
}

// TestFloorModeRequests counts the requests the kernel sends for repeated
// open-read-close of files in each floor mode (go-fuse's debug log of the
// server): the round trips each mode stands for.
func TestFloorModeRequests(t *testing.T) {
	canMount(t)
	const files, opens = 3, 4
	want := map[floorMode]requestCounts{
		floorOpen: {open: files * opens, release: files * opens},
		// The first OPEN and FLUSH answered ENOSYS end both for the connection.
		floorNoOpen: {open: 1, flush: 1},
		// One FLUSH per close, nothing per open: no handle, so no RELEASE.
		floorNoOpenFlush: {open: 1, flush: files * opens},
	}
	for _, mode := range floorModes {
		t.Run(string(mode), func(t *testing.T) {
			dir, names, content := smallCollection(t, 10)
			self, err := os.Executable()
			if err != nil {
				t.Fatal(err)
			}
			mnt := t.TempDir()
			m, err := startFloor(self, dir, mnt, floorOptions{timeout: time.Hour, mode: mode, debug: true})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = m.stop() }()
			for _, name := range names[:files] {
				for range opens {
					if got, err := os.ReadFile(filepath.Join(mnt, name)); err != nil || !bytes.Equal(got, content[name]) {
						t.Fatalf("%s: read %q, %v", name, got, err)
					}
				}
			}
			// RELEASE is sent in the background after close returns: wait
			// (bounded) for the requests to be logged before unmounting.
			for deadline := time.Now().Add(10 * time.Second); countRequests(m.stderr.String()) != want[mode] && time.Now().Before(deadline); {
				time.Sleep(20 * time.Millisecond)
			}
			if err := m.stop(); err != nil {
				t.Fatal(err)
			}
			got := countRequests(m.stderr.String())
			if got != want[mode] {
				t.Errorf("%d opens of %d files: %+v requests, want %+v", opens, files, got, want[mode])
			}
		})
	}
}

func TestFloorOptions(t *testing.T) {
	if storhfsFloor.String() != "" || storhfsFloor.timeout != time.Second || storhfsFloor.mode != floorOpen {
		t.Errorf("storhfs's settings: %+v, %q", storhfsFloor, storhfsFloor)
	}
	v := floorOptions{timeout: time.Hour, mode: floorNoOpen}
	if got := v.String(); got != "1h0m0s cache timeouts, no OPEN/RELEASE/FLUSH (OPEN and FLUSH answered ENOSYS)" {
		t.Errorf("variant described as %q", got)
	}
	if got := strings.Join(v.args(), " "); got != "-timeout 1h0m0s -mode no-open" {
		t.Errorf("server args %q", got)
	}
	for _, m := range floorModes {
		if got, err := parseFloorMode(string(m)); got != m || err != nil {
			t.Errorf("parseFloorMode(%q) = %q, %v", m, got, err)
		}
	}
	if _, err := parseFloorMode("no-flush"); err == nil {
		t.Error("parseFloorMode accepted an unknown mode")
	}
	// The floor is the mount's unless a mode is given: a run of the
	// --no-open mount against a floor with OPEN compared two designs.
	for _, c := range []struct {
		readOnly, noOpen, floorNoOpen bool
		mode                          string
		want                          floorMode
	}{
		{want: floorOpen},
		{noOpen: true, want: floorNoOpenFlush},
		{readOnly: true, want: floorNoOpen},
		{noOpen: true, mode: "open", want: floorOpen},
		{noOpen: true, floorNoOpen: true, want: floorNoOpen},
	} {
		cfg := config{readOnly: c.readOnly, noOpen: c.noOpen}
		if err := parseFloorModes(&cfg, c.mode, c.floorNoOpen, ""); err != nil || cfg.floorOpts.mode != c.want {
			t.Errorf("%+v: floor mode %q, %v; want %q", c, cfg.floorOpts.mode, err, c.want)
		}
	}
	// The server refuses bad arguments before loading or mounting anything.
	for _, args := range [][]string{nil, {"dir"}, {"-timeout", "0s", "dir", "mnt"}, {"-bogus", "dir", "mnt"}, {"-mode", "bogus", "dir", "mnt"}} {
		if err := runFloorServer(args, io.Discard); err == nil {
			t.Errorf("runFloorServer(%q) accepted", args)
		}
	}
}
