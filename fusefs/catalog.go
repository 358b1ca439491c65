package fusefs

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/storhfs/storhfs/core/fsutil"
)

// DocStoreBackend opens and manages DocStore collections; the real one
// wraps github.com/storhfs/storhfs/core/docstore.
type DocStoreBackend interface {
	// IsCollection reports whether dir is a DocStore collection.
	IsCollection(dir string) bool
	// Markers are the entries of a directory whose presence makes it a
	// DocStore collection.
	Markers() []string
	Open(root, collection string, readOnly bool) (RecordStore, error)
	Create(root, collection string) error
	RemoveEmpty(root, collection string) error
}

// DirCatalog discovers collections in a storage root directory. It only
// lists and stats directories; everything inside a collection is the
// engine's business.
//
// A directory is a Queue, a SegmentedLog or a DocStore collection when
// its engine's backend says so (IsCollection, asked in that order), and a namespace
// when one of its subdirectories (up to namespaceDepth levels down) is a
// collection. Hidden names (".storh", ".x") are never shown.
type DirCatalog struct {
	Root   string
	Docs   DocStoreBackend
	Logs   LogBackend
	Queues QueueBackend
}

// namespaceDepth bounds how deep a namespace is searched for collections.
const namespaceDepth = 4

var _ Catalog = (*DirCatalog)(nil)

func (c *DirCatalog) abs(rel string) string {
	if rel == "" {
		return c.Root
	}
	return filepath.Join(c.Root, filepath.FromSlash(rel))
}

func (c *DirCatalog) Kind(rel string) Kind {
	for _, part := range strings.Split(rel, "/") {
		if rel != "" && isHidden(part) {
			return KindNone
		}
	}
	return c.kindOf(c.abs(rel), namespaceDepth)
}

func (c *DirCatalog) kindOf(dir string, depth int) Kind {
	if !isDir(dir) {
		return KindNone
	}
	switch {
	case c.Queues.IsCollection(dir):
		return KindQueue
	case c.Logs.IsCollection(dir):
		return KindLog
	case c.Docs.IsCollection(dir):
		return KindDocStore
	}
	if depth == 0 {
		return KindNone
	}
	entries, err := fsutil.ReadDir(dir)
	if err != nil {
		return KindNone
	}
	for _, e := range entries {
		if e.IsDir() && !isHidden(e.Name()) && c.kindOf(filepath.Join(dir, e.Name()), depth-1) != KindNone {
			return KindNamespace
		}
	}
	return KindNone
}

// fsOwnEntries are names a file system puts in the root of a fresh
// volume; a storage root on a volume of its own holds them from the start.
var fsOwnEntries = map[string]bool{"lost+found": true}

// ForeignEntries lists what the storage root holds when it holds no
// collection at all (its Kind is KindNone): a sign that ROOT is the wrong
// directory (a home directory, a parent of the real root), which would
// mount as an empty folder. Dot files count (a fresh home directory holds
// only those); the file system's own lost+found does not. nil means the
// root holds a collection or is empty (a new storage root).
func (c *DirCatalog) ForeignEntries() ([]string, error) {
	if c.Kind("") != KindNone {
		return nil, nil
	}
	entries, err := os.ReadDir(c.Root)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if !fsOwnEntries[e.Name()] {
			names = append(names, e.Name())
		}
	}
	return names, nil
}

func (c *DirCatalog) List(rel string) ([]DirEntry, error) {
	entries, err := fsutil.ReadDir(c.abs(rel))
	if err != nil {
		return nil, err
	}
	var out []DirEntry
	for _, e := range entries {
		if !e.IsDir() || isHidden(e.Name()) {
			continue
		}
		if k := c.kindOf(filepath.Join(c.abs(rel), e.Name()), namespaceDepth-1); k != KindNone {
			out = append(out, DirEntry{Name: e.Name(), Kind: k})
		}
	}
	return out, nil
}

func (c *DirCatalog) Path(rel string) string { return c.abs(rel) }

// Stat describes rel without following a symlink anywhere below Root: a
// symlinked rel fails with *fsutil.SymlinkError.
func (c *DirCatalog) Stat(rel string) (os.FileInfo, error) { return fsutil.Stat(c.abs(rel)) }

func (c *DirCatalog) OpenDocStore(rel string, readOnly bool) (RecordStore, error) {
	return c.Docs.Open(c.Root, rel, readOnly)
}

func (c *DirCatalog) CreateDocStore(rel string) error { return c.Docs.Create(c.Root, rel) }

func (c *DirCatalog) RemoveDocStore(rel string) error { return c.Docs.RemoveEmpty(c.Root, rel) }

func (c *DirCatalog) OpenLog(rel string) LogStore { return c.Logs.Open(c.abs(rel)) }

func (c *DirCatalog) OpenQueue(rel string) QueueStore { return c.Queues.Open(c.abs(rel)) }

func (c *DirCatalog) Markers() []string {
	return slices.Concat([]string{""}, c.Docs.Markers(), c.Queues.Markers(), c.Logs.Markers())
}

// isDir and isFile never follow a symlink: a symlinked collection, data/,
// segments/ or queue.log is neither, so it is not shown.
func isDir(p string) bool {
	fi, err := fsutil.Stat(p)
	return err == nil && fi.IsDir()
}

func isFile(p string) bool {
	fi, err := fsutil.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
