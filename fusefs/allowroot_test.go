package fusefs

import (
	"reflect"
	"testing"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// descriptorOps are the requests allow_root lets anyone send: they work
// on a descriptor an admitted caller opened.
var descriptorOps = map[string]bool{
	"Read": true, "Write": true, "Writev": true, "Flush": true, "Fsync": true,
	"Fallocate": true, "Lseek": true, "CopyFileRange": true,
	"GetLk": true, "SetLk": true, "SetLkw": true,
	"ReadDir": true, "ReadDirPlus": true, "FsyncDir": true,
}

// callAs calls method m of raw with zero arguments whose request header
// names caller uid, and returns its status.
func callAs(raw fuse.RawFileSystem, m reflect.Method, uid uint32) fuse.Status {
	args := make([]reflect.Value, m.Type.NumIn())
	for j := range args {
		in := m.Type.In(j)
		if in.Kind() != reflect.Pointer {
			args[j] = reflect.Zero(in)
			continue
		}
		args[j] = reflect.New(in.Elem())
		var header *fuse.InHeader
		if h, ok := args[j].Interface().(*fuse.InHeader); ok {
			header = h
		} else if in.Elem().Kind() == reflect.Struct {
			if f := args[j].Elem().FieldByName("InHeader"); f.IsValid() {
				header = f.Addr().Interface().(*fuse.InHeader)
			}
		}
		if header != nil {
			header.Caller.Uid = uid
		}
	}
	res := reflect.ValueOf(raw).MethodByName(m.Name).Call(args)
	return res[len(res)-1].Interface().(fuse.Status)
}

// With allow_root, every request that names a file is refused to a
// caller who is neither root nor the daemon's user, and passed on for
// them; requests on an open descriptor pass for everyone.
func TestAllowRootAdmitsRootAndTheOwnerOnly(t *testing.T) {
	const owner, other = 1000, 1234
	raw := &rootAndOwnerFS{RawFileSystem: fuse.NewDefaultRawFileSystem(), owner: owner}
	rawFS := reflect.TypeOf((*fuse.RawFileSystem)(nil)).Elem()
	statusType := reflect.TypeOf(fuse.OK)
	for i := 0; i < rawFS.NumMethod(); i++ {
		m := rawFS.Method(i)
		if m.Type.NumOut() == 0 || m.Type.Out(m.Type.NumOut()-1) != statusType {
			continue // Forget, Release, Init, ...: nothing to refuse
		}
		for _, uid := range []uint32{0, owner} {
			if st := callAs(raw, m, uid); st == refused {
				t.Errorf("%s by uid %d: %v, want it passed on", m.Name, uid, st)
			}
		}
		st := callAs(raw, m, other)
		switch {
		case descriptorOps[m.Name] && st == refused:
			t.Errorf("%s on an open descriptor by uid %d: refused, want it passed on", m.Name, other)
		case !descriptorOps[m.Name] && st != refused:
			t.Errorf("%s by uid %d: %v, want %v", m.Name, other, st, refused)
		}
	}
}
