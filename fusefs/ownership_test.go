package fusefs

import (
	"reflect"
	"syscall"
	"testing"

	"github.com/hanwen/go-fuse/v2/fuse"
)

func TestMaskedMode(t *testing.T) {
	cases := []struct {
		mode, umask, want uint32
	}{
		{syscall.S_IFREG | 0o644, 0o022, syscall.S_IFREG | 0o644},
		{syscall.S_IFDIR | 0o755, 0o022, syscall.S_IFDIR | 0o755},
		{syscall.S_IFREG | 0o644, 0o002, syscall.S_IFREG | 0o664},
		{syscall.S_IFREG | 0o644, 0o077, syscall.S_IFREG | 0o600},
		{syscall.S_IFDIR | 0o755, 0o027, syscall.S_IFDIR | 0o750},
		{syscall.S_IFREG | 0o644, 0, syscall.S_IFREG | 0o666},
		{syscall.S_IFREG | 0o444, 0, syscall.S_IFREG | 0o444}, // read-only stays so
		{syscall.S_IFDIR | 0o555, 0o077, syscall.S_IFDIR | 0o500},
		{syscall.S_IFLNK | 0o777, 0o077, syscall.S_IFLNK | 0o777},
	}
	for _, c := range cases {
		if got := maskedMode(c.mode, c.umask); got != c.want {
			t.Errorf("maskedMode(%o, %03o) = %o, want %o", c.mode, c.umask, got, c.want)
		}
	}
}

// storedAttr is what the fake node layer answers: owner 7:8, mode 0644.
func storedAttr(a *fuse.Attr) {
	a.Uid, a.Gid, a.Mode = 7, 8, syscall.S_IFREG|0o644
}

// attrNodes answers every request that carries attributes with
// storedAttr; all else is go-fuse's ENOSYS default.
type attrNodes struct {
	fuse.RawFileSystem
	dirPlus []*fuse.EntryOut // the entries of the last READDIRPLUS
}

func (*attrNodes) Lookup(_ <-chan struct{}, _ *fuse.InHeader, _ string, out *fuse.EntryOut) fuse.Status {
	storedAttr(&out.Attr)
	return fuse.OK
}

func (*attrNodes) GetAttr(_ <-chan struct{}, _ *fuse.GetAttrIn, out *fuse.AttrOut) fuse.Status {
	storedAttr(&out.Attr)
	return fuse.OK
}

func (*attrNodes) SetAttr(_ <-chan struct{}, _ *fuse.SetAttrIn, out *fuse.AttrOut) fuse.Status {
	storedAttr(&out.Attr)
	return fuse.OK
}

func (*attrNodes) Mknod(_ <-chan struct{}, _ *fuse.MknodIn, _ string, out *fuse.EntryOut) fuse.Status {
	storedAttr(&out.Attr)
	return fuse.OK
}

func (*attrNodes) Mkdir(_ <-chan struct{}, _ *fuse.MkdirIn, _ string, out *fuse.EntryOut) fuse.Status {
	storedAttr(&out.Attr)
	return fuse.OK
}

func (*attrNodes) Link(_ <-chan struct{}, _ *fuse.LinkIn, _ string, out *fuse.EntryOut) fuse.Status {
	storedAttr(&out.Attr)
	return fuse.OK
}

func (*attrNodes) Symlink(_ <-chan struct{}, _ *fuse.InHeader, _, _ string, out *fuse.EntryOut) fuse.Status {
	storedAttr(&out.Attr)
	return fuse.OK
}

func (*attrNodes) Create(_ <-chan struct{}, _ *fuse.CreateIn, _ string, out *fuse.CreateOut) fuse.Status {
	storedAttr(&out.Attr)
	return fuse.OK
}

func (*attrNodes) Tmpfile(_ <-chan struct{}, _ *fuse.CreateIn, out *fuse.CreateOut) fuse.Status {
	storedAttr(&out.Attr)
	return fuse.OK
}

func (*attrNodes) Statx(_ <-chan struct{}, _ *fuse.StatxIn, out *fuse.StatxOut) fuse.Status {
	out.Uid, out.Gid, out.Mode = 7, 8, syscall.S_IFREG|0o644
	return fuse.OK
}

// ReadDirPlus answers ".", whose entry has no node, and two records
// whose names need different padding.
func (n *attrNodes) ReadDirPlus(_ <-chan struct{}, _ *fuse.ReadIn, out *fuse.DirEntryList) fuse.Status {
	n.dirPlus = nil
	out.AddDirLookupEntry(fuse.DirEntry{Name: ".", Mode: syscall.S_IFDIR})
	for i, name := range []string{"a", "a-longer-name.jsonc"} {
		e := out.AddDirLookupEntry(fuse.DirEntry{Name: name, Mode: syscall.S_IFREG})
		e.NodeId = uint64(10 + i)
		storedAttr(&e.Attr)
		n.dirPlus = append(n.dirPlus, e)
	}
	return fuse.OK
}

// attrOut is the owner and mode in an answer of one of the types that
// carry attributes.
func attrOut(v any) (uid, gid, mode uint32, ok bool) {
	switch o := v.(type) {
	case *fuse.EntryOut:
		return o.Uid, o.Gid, o.Mode, true
	case *fuse.AttrOut:
		return o.Uid, o.Gid, o.Mode, true
	case *fuse.CreateOut:
		return o.Uid, o.Gid, o.Mode, true
	case *fuse.StatxOut:
		return o.Uid, o.Gid, uint32(o.Mode), true
	}
	return 0, 0, 0, false
}

// Every answer that carries attributes passes through the mount's
// Ownership: each RawFileSystem method with such an answer is called
// through mountFS, and a go-fuse upgrade that adds one fails here until
// mountFS presents it (attrNodes then answers it with ENOSYS).
func TestEveryAttributeIsShownWithTheMountsOwnership(t *testing.T) {
	uid, gid, umask := uint32(42), uint32(43), uint32(0o027)
	nodes := &attrNodes{RawFileSystem: fuse.NewDefaultRawFileSystem()}
	mfs := &mountFS{RawFileSystem: nodes, gate: &requestGate{},
		owners: Ownership{UID: &uid, GID: &gid, Umask: &umask}}
	const wantMode = syscall.S_IFREG | 0o640

	rawFS := reflect.TypeOf((*fuse.RawFileSystem)(nil)).Elem()
	dirListType := reflect.TypeOf((*fuse.DirEntryList)(nil))
	checked := 0
	for i := 0; i < rawFS.NumMethod(); i++ {
		m := rawFS.Method(i)
		args := make([]reflect.Value, m.Type.NumIn())
		var outs []any
		for j := range args {
			in := m.Type.In(j)
			switch {
			case in == dirListType && m.Name == "ReadDir":
				args[j] = reflect.ValueOf(fuse.NewDirEntryList(nil, 0)) // names and types only
			case in == dirListType:
				list := fuse.NewDirEntryList(make([]byte, 4096), 0)
				args[j] = reflect.ValueOf(list)
				outs = append(outs, list)
			case in.Kind() == reflect.Pointer:
				args[j] = reflect.New(in.Elem())
				if _, _, _, ok := attrOut(args[j].Interface()); ok {
					outs = append(outs, args[j].Interface())
				}
			default:
				args[j] = reflect.Zero(in)
			}
		}
		if len(outs) == 0 {
			continue
		}
		checked++
		res := reflect.ValueOf(mfs).MethodByName(m.Name).Call(args)
		if st := res[len(res)-1].Interface().(fuse.Status); st != fuse.OK {
			t.Errorf("%s answered %v: a method that carries attributes is not covered by the test's attrNodes", m.Name, st)
			continue
		}
		for _, out := range outs {
			if _, isList := out.(*fuse.DirEntryList); isList {
				for _, e := range nodes.dirPlus {
					if e.Uid != uid || e.Gid != gid || e.Mode != wantMode {
						t.Errorf("%s: entry %d shown as %d:%d %o, want %d:%d %o", m.Name, e.NodeId, e.Uid, e.Gid, e.Mode, uid, gid, wantMode)
					}
				}
				continue
			}
			if u, g, mode, _ := attrOut(out); u != uid || g != gid || mode != wantMode {
				t.Errorf("%s: shown as %d:%d %o, want %d:%d %o", m.Name, u, g, mode, uid, gid, wantMode)
			}
		}
	}
	if checked < 11 {
		t.Errorf("only %d methods carry attributes; the reflection above lost some", checked)
	}
}

// The zero Ownership shows what the nodes built.
func TestZeroOwnershipChangesNothing(t *testing.T) {
	var a fuse.Attr
	storedAttr(&a)
	want := a
	Ownership{}.apply(&a)
	if a != want {
		t.Errorf("zero Ownership changed %+v to %+v", want, a)
	}
}
