package docindex

import (
	"errors"
	"io/fs"
	"strings"

	"github.com/storhfs/storhfs/core/fsutil"
)

// rebuildScope is the set of indexes a partial rebuild writes. The nil
// scope is every index (a full Rebuild); its methods accept a nil receiver.
type rebuildScope struct {
	fields map[string]bool    // equality, unique and range definitions
	pairs  map[[2]string]bool // compound (left, right)
}

func newRebuildScope(refs []IndexRef) *rebuildScope {
	s := &rebuildScope{fields: map[string]bool{}, pairs: map[[2]string]bool{}}
	for _, r := range refs {
		if r.Kind == KindCompound {
			s.pairs[[2]string{r.Field, r.Right}] = true
		} else {
			s.fields[r.Field] = true
		}
	}
	return s
}

func (s *rebuildScope) hasField(field string) bool { return s == nil || s.fields[field] }

func (s *rebuildScope) hasPair(left, right string) bool {
	return s == nil || s.pairs[[2]string{left, right}]
}

// pairsWith reports whether field is half of a compound index in scope.
func (s *rebuildScope) pairsWith(field string) bool {
	if s == nil {
		return true
	}
	for p := range s.pairs {
		if p[0] == field || p[1] == field {
			return true
		}
	}
	return false
}

// remove deletes every file of the scope's indexes (the nil scope:
// entries/) and reports whether all of it is gone. A field's range files
// and its equality directory both go: the definition says which one it
// uses, and the other holds nothing a rebuild writes.
func (s *rebuildScope) remove(p paths) bool {
	if s == nil {
		return fsutil.RemoveAll(p.entries()) == nil
	}
	ok := true
	gone := func(err error) {
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			ok = false
		}
	}
	for field := range s.fields {
		gone(fsutil.RemoveAll(p.eqDir(field)))
		for _, f := range []string{p.rangeMain(field), p.rangeIdx(field), p.rangeDelta(field)} {
			gone(fsutil.Remove(f))
		}
		// Chunks of a rebuild that died: <FK>-<n>.jsonl. FK is hex, so the
		// prefix "<FK>-" matches no other field's chunks.
		chunks, _ := fsutil.ReadDir(p.chunksDir())
		prefix := FieldKey(field) + "-"
		for _, c := range chunks {
			if name := c.Name(); strings.HasPrefix(name, prefix) && strings.HasSuffix(name, ".jsonl") {
				gone(fsutil.Remove(p.chunksDir() + "/" + name))
			}
		}
	}
	for pair := range s.pairs {
		gone(fsutil.RemoveAll(p.compoundDir(pair[0], pair[1])))
	}
	return ok
}
