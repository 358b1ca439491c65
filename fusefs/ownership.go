package fusefs

import (
	"syscall"
	"unsafe"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// Ownership is how the mount shows owners and permission bits: the uid=,
// gid= and umask= mount options of sshfs and rclone. The zero Ownership
// shows every file as its node describes it (the stored file's owner,
// 0644 and 0755, 0444 and 0555 on a read-only mount).
//
// It is applied in one place, mountFS (rawfs.go), to every attribute the
// mount sends the kernel (LOOKUP, GETATTR, SETATTR, CREATE, MKDIR, MKNOD,
// LINK, SYMLINK, TMPFILE, STATX and each READDIRPLUS entry), so no node
// has to know about it, and the kernel's default_permissions checks and
// its attribute cache see the same owner and bits as ls.
type Ownership struct {
	UID *uint32 // owner of every file and folder; nil: each one's own
	GID *uint32 // group of every file and folder; nil: each one's own
	// Umask, when set, makes the permission bits the owner's bits given
	// to owner, group and others, less Umask: files 0666 &^ Umask and
	// folders 0777 &^ Umask as rclone shows them, while a file the mount
	// shows read-only (a view, .storhfs/errors, a read-only mount) stays
	// read-only for everyone.
	Umask *uint32
}

// isZero reports whether o changes nothing.
func (o Ownership) isZero() bool {
	return o.UID == nil && o.GID == nil && o.Umask == nil
}

// apply rewrites the owner and permission bits of one attribute.
func (o Ownership) apply(a *fuse.Attr) {
	if o.UID != nil {
		a.Uid = *o.UID
	}
	if o.GID != nil {
		a.Gid = *o.GID
	}
	if o.Umask != nil {
		a.Mode = maskedMode(a.Mode, *o.Umask)
	}
}

// applyStatx is apply for a STATX answer.
func (o Ownership) applyStatx(s *fuse.Statx) {
	if o.UID != nil {
		s.Uid = *o.UID
	}
	if o.GID != nil {
		s.Gid = *o.GID
	}
	if o.Umask != nil {
		s.Mode = uint16(maskedMode(uint32(s.Mode), *o.Umask))
	}
}

// maskedMode is mode with its permission bits replaced by the owner's
// bits for all three classes, less umask. File type bits stay; a
// symlink's bits mean nothing and stay too.
func maskedMode(mode, umask uint32) uint32 {
	if mode&syscall.S_IFMT == syscall.S_IFLNK {
		return mode
	}
	owner := (mode >> 6) & 7
	return mode&^0o7777 | (owner*0o111)&^umask&0o777
}

// applyDirPlus applies o to every entry of a READDIRPLUS answer, which
// go-fuse has already laid out in the kernel's format: each entry is a
// fuse_entry_out, a fuse_dirent header (ino, off, namelen, type) and the
// name, padded to 8 bytes. Entries without a node ("." and "..", names
// whose lookup failed) carry no attributes the kernel reads.
func (o Ownership) applyDirPlus(buf []byte) {
	const direntHeader = 24 // struct fuse_dirent up to its name
	entryOut := int(unsafe.Sizeof(fuse.EntryOut{}))
	for off := 0; off+entryOut+direntHeader <= len(buf); {
		e := (*fuse.EntryOut)(unsafe.Pointer(&buf[off]))
		nameLen := int(*(*uint32)(unsafe.Pointer(&buf[off+entryOut+16])))
		if e.NodeId != 0 {
			o.apply(&e.Attr)
		}
		off += entryOut + (direntHeader+nameLen+7)&^7
	}
}
