package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"storhfs/core/phpjson"
	"storhfs/core/seglog"
)

// withLogView runs fn on a SegmentedLog opened from a private copy of the
// log collection root/collection, so that the read-only commands (stats,
// verify, compact ... queue is not a log) get the engine's own replay, stats
// and verify without any of the side effects of opening the real log (lock,
// writer marker, sweep, leftover removal, truncation, manifest rewrite).
//
// The copy (in $TMPDIR) holds manifest.jsonc and the segment files it
// references. Opening it truncates the copy's invalid tails; those bytes are
// then put back, so the open Log's state is the valid prefix (what PHP's
// open would keep) while its files hold exactly the original bytes: stats
// reports the real sizes and verify meets the torn or corrupt lines, as
// PHP's verify() does on a live instance. Messages naming the copy are
// rewritten to name the original directory.
//
// The copy costs one read of the referenced segments (copy_file_range, so
// a reflink where the file system supports it). A missing collection or
// manifest gives the empty log PHP's open would create, without creating it.
func withLogView(root, collection string, fn func(l *seglog.Log) error) error {
	src := seglog.CollectionDir(root, collection, seglog.PartitionNone, 0)
	tmp, err := os.MkdirTemp("", "storhfs-logview-")
	if err != nil {
		return fmt.Errorf("log view of %s: %w", src, err)
	}
	defer os.RemoveAll(tmp)
	view := tmp + "/log"
	if err := os.MkdirAll(view+"/segments", 0o700); err != nil {
		return fmt.Errorf("log view of %s: %w", src, err)
	}
	copied, err := copyLogFiles(src, view)
	if err != nil {
		return renamePaths(err, view, src)
	}
	l, err := seglog.Open(tmp, "log", seglog.Options{})
	if err != nil {
		return renamePaths(err, view, src)
	}
	defer l.Close()
	for _, seg := range copied {
		if err := restoreTail(src+"/segments/"+seg.name, view+"/segments/"+seg.name, seg.size); err != nil {
			return renamePaths(err, view, src)
		}
	}
	return renamePaths(fn(l), view, src)
}

// copyLogFiles copies src/manifest.jsonc and the segments it references into
// dst and returns the copied segments. Without a manifest nothing is
// copied; an unreadable manifest is copied alone (the open then fails with
// PHP's message, as it would on the original).
func copyLogFiles(src, dst string) ([]copiedSegment, error) {
	manifest, err := os.ReadFile(src + "/manifest.jsonc")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(dst+"/manifest.jsonc", manifest, 0o600); err != nil {
		return nil, err
	}
	var copied []copiedSegment
	for _, name := range manifestSegments(manifest) {
		size, err := copyFile(src+"/segments/"+name, dst+"/segments/"+name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			// The open treats it as PHP does (skipped, or created if active).
		case err != nil:
			return nil, err
		default:
			copied = append(copied, copiedSegment{name: name, size: size})
		}
	}
	return copied, nil
}

// manifestSegments lists the plain file names of manifest.jsonc's sealed
// and active entries (spec segmentedlog.md 1.4). Names with a path
// separator or dot-dot are left out: they are never PHP's own and would
// escape the copy.
func manifestSegments(manifest []byte) []string {
	doc, err := phpjson.DecodeJSONCObject(manifest)
	if err != nil {
		return nil
	}
	var names []string
	seen := map[string]bool{}
	add := func(entry phpjson.Value) {
		obj, ok := entry.(*phpjson.Array)
		if !ok {
			return
		}
		file, ok := obj.Lookup("file")
		name, isString := file.(string)
		if ok && isString && !seen[name] && name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/\\\x00") {
			seen[name] = true
			names = append(names, name)
		}
	}
	if sealed, ok := doc.Lookup("sealed"); ok {
		if list, ok := sealed.(*phpjson.Array); ok {
			for _, e := range list.Values() {
				add(e)
			}
		}
	}
	if active, ok := doc.Lookup("active"); ok {
		add(active)
	}
	return names
}

// copiedSegment is a segment file copied into the view and its size then.
type copiedSegment struct {
	name string
	size int64
}

// copyFile copies the regular file src to the new file dst and returns the
// number of bytes copied.
func copyFile(src, dst string) (int64, error) {
	in, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	if fi, err := in.Stat(); err != nil {
		return 0, err
	} else if !fi.Mode().IsRegular() {
		return 0, fmt.Errorf("segment %s is not a regular file", src)
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return n, err
}

// restoreTail appends to the view's segment the original bytes its open
// truncated (up to the copied size), so the view holds the copied content
// again.
func restoreTail(orig, view string, copiedSize int64) error {
	vf, err := os.OpenFile(view, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	defer vf.Close()
	vfi, err := vf.Stat()
	if err != nil {
		return err
	}
	if vfi.Size() >= copiedSize {
		return nil
	}
	of, err := os.Open(orig)
	if err != nil {
		return err
	}
	defer of.Close()
	if _, err := of.Seek(vfi.Size(), io.SeekStart); err != nil {
		return err
	}
	_, err = io.Copy(vf, io.LimitReader(of, copiedSize-vfi.Size()))
	return err
}

// renamePaths rewrites the view directory to the original one in err's
// message (the error chain is kept for errors.Is).
func renamePaths(err error, view, orig string) error {
	if err == nil || !strings.Contains(err.Error(), view) {
		return err
	}
	return &renamedError{msg: strings.ReplaceAll(err.Error(), view, orig), err: err}
}

type renamedError struct {
	msg string
	err error
}

func (e *renamedError) Error() string { return e.msg }
func (e *renamedError) Unwrap() error { return e.err }
