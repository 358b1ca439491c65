package main

import (
	"fmt"
	"time"
	"unsafe"

	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

const (
	opLookup      = 1
	opForget      = 2
	opGetattr     = 3
	opOpen        = 14
	opRead        = 15
	opStatfs      = 17
	opRelease     = 18
	opGetxattr    = 22
	opListxattr   = 23
	opFlush       = 25
	opInit        = 26
	opOpendir     = 27
	opReaddir     = 28
	opReleasedir  = 29
	opAccess      = 34
	opInterrupt   = 36
	opDestroy     = 38
	opBatchForget = 42

	inHeaderSize  = int(unsafe.Sizeof(fuse.InHeader{}))
	outHeaderSize = int(unsafe.Sizeof(fuse.OutHeader{}))
	maxWrite      = 128 << 10
	timeout       = uint64(time.Hour / time.Second)
)

// as views the start of b as a T; b comes from page-aligned buffers.
func as[T any](b []byte) *T {
	if len(b) < int(unsafe.Sizeof(*new(T))) {
		panic(fmt.Sprintf("short buffer: %d bytes for %T", len(b), *new(T)))
	}
	return (*T)(unsafe.Pointer(&b[0]))
}

func put[T any](out []byte, v T) int {
	*as[T](out) = v
	return int(unsafe.Sizeof(v))
}

func (t *tree) attr(node uint64) (fuse.Attr, bool) {
	if node == 1 {
		return fuse.Attr{Ino: 1, Mode: unix.S_IFDIR | 0o555, Nlink: 2, Blksize: 4096}, true
	}
	i := int(node) - 2
	if i < 0 || i >= len(t.data) {
		return fuse.Attr{}, false
	}
	size := uint64(len(t.data[i]))
	return fuse.Attr{Ino: node, Size: size, Blocks: (size + 511) / 512, Mode: unix.S_IFREG | 0o444, Nlink: 1, Blksize: 4096}, true
}

// handle answers one request. arg is everything after the in-header; the
// reply's arguments are written to out. It returns the status (0 or a
// negative errno) and the reply length; noReply is true for FORGETs.
func (t *tree) handle(h *fuse.InHeader, arg, out []byte) (status int32, n int, noReply bool) {
	switch h.Opcode {
	case opForget, opBatchForget:
		return 0, 0, true
	case opInterrupt:
		return 0, 0, true
	case opLookup:
		name := cstring(arg)
		node, ok := t.index[name]
		if h.NodeId != 1 || !ok {
			return -int32(unix.ENOENT), 0, false
		}
		a, _ := t.attr(node)
		return 0, put(out, fuse.EntryOut{NodeId: node, EntryValid: timeout, AttrValid: timeout, Attr: a}), false
	case opGetattr:
		a, ok := t.attr(h.NodeId)
		if !ok {
			return -int32(unix.ENOENT), 0, false
		}
		return 0, put(out, fuse.AttrOut{AttrValid: timeout, Attr: a}), false
	case opOpen:
		if t.hang != 0 && h.NodeId == t.hang {
			select {} // a handler that never returns (-hang)
		}
		flags := uint32(fuse.FOPEN_KEEP_CACHE)
		if t.noflush {
			flags |= fuse.FOPEN_NOFLUSH
		}
		return 0, put(out, fuse.OpenOut{Fh: h.NodeId, OpenFlags: flags}), false
	case opOpendir:
		return 0, put(out, fuse.OpenOut{Fh: 1, OpenFlags: fuse.FOPEN_KEEP_CACHE | fuse.FOPEN_CACHE_DIR}), false
	case opRead:
		in := readIn(arg)
		i := int(h.NodeId) - 2
		if i < 0 || i >= len(t.data) {
			return -int32(unix.EBADF), 0, false
		}
		d := t.data[i]
		if in.Offset >= uint64(len(d)) {
			return 0, 0, false
		}
		return 0, copy(out[:min(int(in.Size), len(out))], d[in.Offset:]), false
	case opReaddir:
		return 0, t.readdir(readIn(arg), out), false
	case opRelease, opReleasedir, opFlush:
		return 0, 0, false
	case opStatfs:
		return 0, put(out, fuse.StatfsOut{Bsize: 4096, NameLen: 255}), false
	case opDestroy:
		return 0, 0, false
	}
	return -int32(unix.ENOSYS), 0, false
}

// readIn reads fuse_read_in (go-fuse's ReadIn starts with the in-header).
func readIn(arg []byte) fuse.ReadIn {
	var in fuse.ReadIn
	body := unsafe.Slice((*byte)(unsafe.Pointer(&in)), unsafe.Sizeof(in))[inHeaderSize:]
	copy(body, arg)
	return in
}

// readdir lists the names from offset in.Offset; offset k means "after the
// k-th entry" (0 = start), with . and .. first.
func (t *tree) readdir(in fuse.ReadIn, out []byte) int {
	out = out[:min(int(in.Size), len(out))]
	n := 0
	for k := int(in.Offset); k < len(t.names)+2; k++ {
		name, ino, typ := "", uint64(1), uint32(unix.DT_DIR)
		switch k {
		case 0:
			name = "."
		case 1:
			name = ".."
		default:
			name, ino, typ = t.names[k-2], uint64(k), unix.DT_REG
		}
		size := (24 + len(name) + 7) &^ 7
		if n+size > len(out) {
			break
		}
		d := as[dirent](out[n:])
		*d = dirent{Ino: ino, Off: uint64(k + 1), NameLen: uint32(len(name)), Typ: typ}
		copy(out[n+24:], name)
		for i := n + 24 + len(name); i < n+size; i++ {
			out[i] = 0
		}
		n += size
	}
	return n
}

type dirent struct {
	Ino     uint64
	Off     uint64
	NameLen uint32
	Typ     uint32
}

func cstring(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}
