package conformance

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// buildBefore fills the empty storage root with the case's before/ tree
// (README 2.1): every directory of before.dirs (empty ones are not in the
// checkout), every file of before/ copied with a fresh mtime, then the
// forced mtimes of before.mtimes. The copied files must be exactly the
// listed ones with the listed sha256.
func buildBefore(c *caseSpec, root string) error {
	b := c.Meta.Before
	if b == nil {
		return nil
	}
	for _, d := range b.Dirs {
		if err := os.MkdirAll(filepath.Join(root, d), 0o777); err != nil {
			return err
		}
	}
	src := filepath.Join(c.Dir, "before")
	copied := map[string]bool{}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		rel = filepath.ToSlash(rel)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		want, ok := b.Files[rel]
		if !ok {
			return fmt.Errorf("before/%s is not listed in case.json", rel)
		}
		sum := sha256.Sum256(data)
		if hex.EncodeToString(sum[:]) != want.SHA256 {
			return fmt.Errorf("before/%s: sha256 differs from case.json (line endings converted by git?)", rel)
		}
		dst := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o777); err != nil {
			return err
		}
		copied[rel] = true
		return os.WriteFile(dst, data, 0o666)
	})
	if err != nil && !(os.IsNotExist(err) && len(b.Files) == 0) {
		return fmt.Errorf("copy before/: %w", err)
	}
	for rel := range b.Files {
		if !copied[rel] {
			return fmt.Errorf("before/%s listed in case.json but missing", rel)
		}
	}
	for rel, sec := range b.Mtimes {
		t := time.Unix(sec, 0)
		if err := os.Chtimes(filepath.Join(root, rel), t, t); err != nil {
			return err
		}
	}
	return nil
}
