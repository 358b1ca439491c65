package fusefs

import (
	"context"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/internal/fuseattr"
)

// IndexViews is what the index folders need of a collection;
// *docstore.Store has it (core/docstore/views.go). A store without it
// has no COLL/.by.
type IndexViews interface {
	// EqualityFields lists the fields with an equality or unique index.
	EqualityFields() ([]string, error)
	// EqualityValues lists the values field's index holds.
	EqualityValues(field string) ([]phpjson.Value, error)
	// EqualityCount is the stored count of field's entry for v.
	EqualityCount(field string, v phpjson.Value) (int64, error)
	// EqualIDs returns, in id order, the ids PHP's indexed
	// where(field, '=', v) returns.
	EqualIDs(field string, v phpjson.Value) ([]string, error)
}

// The index folders (README.md, "Index folders and the whole-collection
// file"), all read-only:
//
//	COLL/.by/                 one folder per field with an equality or unique index
//	COLL/.by/FIELD/           one folder per value the index holds (byname.go)
//	COLL/.by/FIELD/VALUE/     the records PHP's indexed where(FIELD, '=', VALUE)
//	                          returns, in id order: the collection's own record
//	                          nodes (same inode, same content)
//
// Nothing below .by is cached by the kernel past its use (volatile
// entries, no readdir cache): each lookup and listing asks the mount,
// which answers from the index files, so a change by PHP or through the
// mount shows up at once; a folder's record list is kept for reuse while
// the collection has not changed (viewCurrent), at most cacheTimeout.
type byDir struct {
	fs.Inode
	readOnlyDir
	c *collectionNode
}

type byFieldDir struct {
	fs.Inode
	readOnlyDir
	c     *collectionNode
	field string
	path  string // below the collection: ".by/<name>"
}

type byValueDir struct {
	fs.Inode
	readOnlyDir
	c     *collectionNode
	field string
	value phpjson.Value

	mu    sync.Mutex
	ids   []string  // the last answer, sorted
	state viewState // when it was computed
}

var (
	_ fs.NodeLookuper  = (*byDir)(nil)
	_ fs.NodeReaddirer = (*byDir)(nil)
	_ fs.NodeGetattrer = (*byDir)(nil)
	_ fs.NodeLookuper  = (*byFieldDir)(nil)
	_ fs.NodeReaddirer = (*byFieldDir)(nil)
	_ fs.NodeGetattrer = (*byFieldDir)(nil)
	_ fs.NodeLookuper  = (*byValueDir)(nil)
	_ fs.NodeReaddirer = (*byValueDir)(nil)
	_ fs.NodeGetattrer = (*byValueDir)(nil)
)

// indexViews returns the collection's index views; ENOENT when the store
// has none.
func (c *collectionNode) indexViews() (IndexViews, syscall.Errno) {
	s, errno := c.store()
	if errno != 0 {
		return nil, errno
	}
	iv, ok := s.(IndexViews)
	if !ok {
		return nil, syscall.ENOENT
	}
	return iv, 0
}

// viewErrno logs a failed index read and maps it to an errno.
func (c *collectionNode) viewErrno(what string, err error) syscall.Errno {
	c.m.log.Printf("%s of %s: %v", what, c.rel, err)
	return errnoOf(err, syscall.EIO)
}

// viewDirAttr describes a folder of .by: the collection folder's times,
// read-only.
func (c *collectionNode) viewDirAttr(out *fuse.Attr) syscall.Errno {
	fi, err := c.m.catalog.Stat(c.rel)
	if err != nil {
		return errnoOf(err, syscall.EIO)
	}
	fuseattr.FromInfo(out, fi, roDirPerm)
	return 0
}

// noNegativeEntry keeps the kernel from caching a "no such name" answer
// in .by (go-fuse caches ENOENT for the mount's negative timeout only when
// the lookup left no entry lifetime): the name may appear with the next
// change of the collection.
func noNegativeEntry(out *fuse.EntryOut) { out.SetEntryTimeout(volatileTimeout) }

// viewDirEntry fills out for a folder of .by, with no entry lifetime.
func (c *collectionNode) viewDirEntry(out *fuse.EntryOut) syscall.Errno {
	out.SetEntryTimeout(volatileTimeout)
	out.SetAttrTimeout(volatileTimeout)
	return c.viewDirAttr(&out.Attr)
}

func (c *collectionNode) lookupByDir(ctx context.Context, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if _, errno := c.indexViews(); errno != 0 {
		return nil, errno
	}
	if errno := c.viewDirEntry(out); errno != 0 {
		return nil, errno
	}
	return c.NewInode(ctx, &byDir{c: c},
		fs.StableAttr{Mode: syscall.S_IFDIR, Ino: dirIno(childRel(c.rel, byDirName))}), 0
}

func (d *byDir) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	out.SetTimeout(volatileTimeout)
	return d.c.viewDirAttr(&out.Attr)
}

// fields returns the indexed fields by folder name.
func (d *byDir) fields() (map[string]string, syscall.Errno) {
	iv, errno := d.c.indexViews()
	if errno != 0 {
		return nil, errno
	}
	fields, err := iv.EqualityFields()
	if err != nil {
		return nil, d.c.viewErrno("read index definitions", err)
	}
	byName := make(map[string]string, len(fields))
	for _, f := range fields {
		if name, ok := fieldName(f); ok {
			byName[name] = f
		}
	}
	return byName, 0
}

func (d *byDir) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	noNegativeEntry(out)
	if _, ok := fieldOfName(name); !ok {
		return nil, syscall.ENOENT
	}
	fields, errno := d.fields()
	if errno != 0 {
		return nil, errno
	}
	field, ok := fields[name]
	if !ok {
		return nil, syscall.ENOENT
	}
	if errno := d.c.viewDirEntry(out); errno != 0 {
		return nil, errno
	}
	path := byDirName + "/" + name
	return d.NewInode(ctx, &byFieldDir{c: d.c, field: field, path: path},
		fs.StableAttr{Mode: syscall.S_IFDIR, Ino: dirIno(childRel(d.c.rel, path))}), 0
}

func (d *byDir) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	fields, errno := d.fields()
	if errno != 0 {
		return nil, errno
	}
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	slices.Sort(names)
	list := make([]fuse.DirEntry, len(names))
	for i, name := range names {
		list[i] = fuse.DirEntry{Name: name, Mode: syscall.S_IFDIR, Ino: dirIno(childRel(d.c.rel, byDirName+"/"+name))}
	}
	return listWithDots(&d.Inode, list), 0
}

func (d *byFieldDir) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	out.SetTimeout(volatileTimeout)
	return d.c.viewDirAttr(&out.Attr)
}

// Lookup finds the folder of a value the index holds.
func (d *byFieldDir) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	noNegativeEntry(out)
	v, ok := valueOfName(name)
	if !ok {
		return nil, syscall.ENOENT
	}
	iv, errno := d.c.indexViews()
	if errno != 0 {
		return nil, errno
	}
	n, err := iv.EqualityCount(d.field, v)
	if err != nil {
		return nil, d.c.viewErrno("read index "+d.field, err)
	}
	if n == 0 {
		return nil, syscall.ENOENT
	}
	if errno := d.c.viewDirEntry(out); errno != 0 {
		return nil, errno
	}
	return d.NewInode(ctx, &byValueDir{c: d.c, field: d.field, value: v},
		fs.StableAttr{Mode: syscall.S_IFDIR, Ino: dirIno(childRel(d.c.rel, d.path+"/"+name))}), 0
}

func (d *byFieldDir) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	iv, errno := d.c.indexViews()
	if errno != 0 {
		return nil, errno
	}
	values, err := iv.EqualityValues(d.field)
	if err != nil {
		return nil, d.c.viewErrno("read index "+d.field, err)
	}
	list := make([]fuse.DirEntry, 0, len(values))
	for _, v := range values {
		if name, ok := valueName(v); ok {
			list = append(list, fuse.DirEntry{Name: name, Mode: syscall.S_IFDIR, Ino: dirIno(childRel(d.c.rel, d.path+"/"+name))})
		}
	}
	slices.SortFunc(list, func(a, b fuse.DirEntry) int { return strings.Compare(a.Name, b.Name) })
	list = slices.CompactFunc(list, func(a, b fuse.DirEntry) bool { return a.Name == b.Name })
	return listWithDots(&d.Inode, list), 0
}

func (d *byValueDir) Getattr(ctx context.Context, f fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	out.SetTimeout(volatileTimeout)
	return d.c.viewDirAttr(&out.Attr)
}

// records returns the ids of the folder's records: the last answer while
// it is current, else a new one from the index.
func (d *byValueDir) records() ([]string, syscall.Errno) {
	now := time.Now()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.c.viewCurrent(d.state, now, true) {
		return d.ids, 0
	}
	iv, errno := d.c.indexViews()
	if errno != 0 {
		return nil, errno
	}
	state := d.c.newViewState() // before the read: a change during it moves the stamp
	ids, err := iv.EqualIDs(d.field, d.value)
	if err != nil {
		return nil, d.c.viewErrno("query index "+d.field, err)
	}
	d.ids, d.state = ids, state
	return ids, 0
}

func (d *byValueDir) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	ids, errno := d.records()
	if errno != 0 {
		return nil, errno
	}
	list := make([]fuse.DirEntry, len(ids))
	for i, id := range ids {
		list[i] = fuse.DirEntry{Name: id + recordExt, Mode: syscall.S_IFREG, Ino: recordIno(d.c.rel, id)}
	}
	return listWithDots(&d.Inode, list), 0
}

// Lookup gives a listed record's node: the collection's own
// (recordInode), so reading it is reading the record. Its entry here has
// no lifetime: the record may leave the folder without its file changing
// (an index rebuild), and nothing would tell the kernel.
func (d *byValueDir) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	noNegativeEntry(out)
	id, ok := recordID(name)
	if !ok {
		return nil, syscall.ENOENT
	}
	ids, errno := d.records()
	if errno != 0 {
		return nil, errno
	}
	if _, found := slices.BinarySearch(ids, id); !found {
		return nil, syscall.ENOENT
	}
	version, errno := d.c.lookupRecord(id, out, nil)
	if errno != 0 {
		return nil, errno
	}
	out.SetEntryTimeout(volatileTimeout)
	return d.c.recordInode(ctx, name, id, version), 0
}
