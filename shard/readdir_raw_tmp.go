package shard

import (
	"encoding/binary"
	"fmt"
	"io/fs"
	"slices"
	"sync"

	"golang.org/x/sys/unix"

	"storhfs/core/fsutil"
)

// direntBufPool holds getdents buffers for readDir.
var direntBufPool = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// Offsets in a struct linux_dirent64: d_ino u64, d_off s64, d_reclen u16,
// d_type u8, then the NUL-terminated name.
const (
	direntReclen = 16
	direntType   = 18
	direntName   = 19
)

// readDir returns the sorted record keys of the regular files directly in
// dir and the paths of its subdirectories. Symlinks are never followed
// (design.md): a symlinked record or subdirectory is left out, and a dir
// that is or passes through a symlink fails with ELOOP. A missing dir
// gives an error wrapping fs.ErrNotExist.
//
// It reads the raw getdents64 records: the names of one batch are copied
// into one string, which the keys are slices of (one allocation per batch
// instead of a few per entry, as os.ReadDir makes). Entries of unknown
// type (DT_UNKNOWN) are lstat'ed, as os.ReadDir does.
func readDirRaw(dir string) (ids, subdirs []string, err error) {
	fd, err := openDir(dir)
	if err != nil {
		if err == unix.ENOENT {
			return nil, nil, &fs.PathError{Op: "open", Path: dir, Err: err}
		}
		return nil, nil, fmt.Errorf("scan records %s: %w", dir, &fs.PathError{Op: "open", Path: dir, Err: err})
	}
	defer unix.Close(fd)
	bp := direntBufPool.Get().(*[]byte)
	defer direntBufPool.Put(bp)
	buf := *bp
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("scan records %s: %w", dir, &fs.PathError{Op: "readdirent", Path: dir, Err: err})
		}
		if n <= 0 {
			break
		}
		batch := string(buf[:n]) // names are sliced from this copy
		for off := 0; off+direntName <= len(batch); {
			reclen := int(binary.LittleEndian.Uint16(buf[off+direntReclen:]))
			if reclen < direntName || off+reclen > len(batch) {
				return nil, nil, fmt.Errorf("scan records %s: malformed directory entry", dir)
			}
			name := cString(batch[off+direntName : off+reclen])
			typ := buf[off+direntType]
			off += reclen
			if name == "." || name == ".." || name == "" {
				continue
			}
			if typ == unix.DT_UNKNOWN {
				var gone bool
				if typ, gone, err = lstatType(fd, name); gone {
					continue // removed since getdents
				}
				if err != nil {
					return nil, nil, fmt.Errorf("scan records %s: %w", dir, &fs.PathError{Op: "lstat", Path: dir + "/" + name, Err: err})
				}
			}
			if typ == unix.DT_DIR {
				subdirs = append(subdirs, dir+"/"+name)
				continue
			}
			id, ok := IDFromName(name)
			if !ok {
				continue
			}
			if typ != unix.DT_REG {
				continue // symlinks and special files are not records
			}
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, subdirs, nil
}

func openDir(dir string) (int, error) {
	for {
		fd, err := fsutil.OpenAt(unix.AT_FDCWD, dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// cString is s up to its first NUL.
func cString(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return s[:i]
		}
	}
	return s
}

// lstatType is the DT_* type of name in the directory dirfd from lstat
// (DT_UNKNOWN for other file types); gone when the entry no longer exists.
// Like os.ReadDir, any other lstat failure is an error, not a skipped entry.
func lstatType(dirfd int, name string) (typ uint8, gone bool, err error) {
	var st unix.Stat_t
	for {
		err = unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err != unix.EINTR {
			break
		}
	}
	if err == unix.ENOENT {
		return unix.DT_UNKNOWN, true, nil
	}
	if err != nil {
		return unix.DT_UNKNOWN, false, err
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return unix.DT_DIR, false, nil
	case unix.S_IFREG:
		return unix.DT_REG, false, nil
	case unix.S_IFLNK:
		return unix.DT_LNK, false, nil
	}
	return unix.DT_UNKNOWN, false, nil
}
