// Package treetest snapshots a directory tree so that a test can assert an
// operation changed nothing in it (a rejected write, a read-only command, a
// read-only mount).
package treetest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Snapshot maps every entry below root, by path relative to root, to its
// type and permission bits and, for a regular file, the sha256 of its
// content. A missing root is the empty tree.
func Snapshot(t testing.TB, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		entry := info.Mode().String()
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			entry += " " + hex.EncodeToString(sum[:])
		}
		rel, _ := filepath.Rel(root, p)
		out[rel] = entry
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("snapshot %s: %v", root, err)
	}
	return out
}

// AssertSame reports every path that disappeared, changed or appeared
// between two snapshots; what names the operation in the messages.
func AssertSame(t testing.TB, what string, before, after map[string]string) {
	t.Helper()
	for p, b := range before {
		if a, ok := after[p]; !ok {
			t.Errorf("%s removed %s", what, p)
		} else if a != b {
			t.Errorf("%s changed %s (%s -> %s)", what, p, b, a)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s created %s", what, p)
		}
	}
}
