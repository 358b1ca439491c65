package fusefs

import (
	"strings"
	"syscall"

	"github.com/zeebo/xxh3"

	"github.com/storhfs/storhfs/core/uuidv7"
	"github.com/storhfs/storhfs/shard"
)

// recordExt is the extension of every record file name: <uuidv7>.jsonc.
const recordExt = shard.RecordExt

// recordID returns the id named by a record file name, or false when name
// is not "<valid uuidv7>.jsonc".
func recordID(name string) (string, bool) {
	id, ok := strings.CutSuffix(name, recordExt)
	if !ok || !uuidv7.Valid(id) {
		return "", false
	}
	return id, true
}

// isScratchName reports whether name is a temporary name used by editors
// and tools while saving. Such files live in memory only.
//
//	vim:         4913 (and other all-digit probes), .x.swp/.x.swo/..., x~
//	sed:         sedXXXXXX
//	rsync:       .x.XXXXXX
//	emacs:       #x#, .#x, x~
//	GIO (gedit, nautilus, gio save): .goutputstream-XXXXXX
//	JetBrains:   x___jb_tmp___, x___jb_old___
//	Python:      tmpXXXXXXXX (tempfile.mkstemp/NamedTemporaryFile in a directory)
//	LibreOffice: .~lock.x#
//	other:       *.tmp, tmp, x.new, x.bak, x.orig, x.part
func isScratchName(name string) bool {
	switch {
	case name == "" || name == "." || name == "..":
		return false
	case allDigits(name):
		return true
	case strings.HasSuffix(name, "~"),
		strings.HasSuffix(name, ".tmp"),
		name == "tmp",
		strings.HasPrefix(name, ".#"),
		len(name) >= 2 && name[0] == '#' && name[len(name)-1] == '#':
		return true
	case len(name) == 9 && strings.HasPrefix(name, "sed") && alnum(name[3:]):
		return true
	case name[0] == '.' && isVimSwap(name):
		return true
	case name[0] == '.' && isRsyncTemp(name):
		return true
	case isToolTemp(name):
		return true
	}
	return false
}

// scratchSuffixes end the names of backups, partial downloads and
// to-be-renamed copies (after at least one other character).
var scratchSuffixes = []string{".new", ".bak", ".orig", ".part", "___jb_tmp___", "___jb_old___"}

// isToolTemp matches the save and lock names of GIO, Python's tempfile,
// LibreOffice and the suffixes above.
func isToolTemp(name string) bool {
	for _, suffix := range scratchSuffixes {
		if len(name) > len(suffix) && strings.HasSuffix(name, suffix) {
			return true
		}
	}
	if rest, ok := strings.CutPrefix(name, ".goutputstream-"); ok {
		return len(rest) == 6 && alnum(rest)
	}
	if rest, ok := strings.CutPrefix(name, "tmp"); ok && len(rest) == 8 {
		return isPythonTempChars(rest)
	}
	return len(name) > len(".~lock.#") && strings.HasPrefix(name, ".~lock.") && strings.HasSuffix(name, "#")
}

// isPythonTempChars reports whether s uses only the characters of Python's
// tempfile names (tempfile._RandomNameSequence: a-z, 0-9, _).
func isPythonTempChars(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c == '_') {
			return false
		}
	}
	return true
}

// isVimSwap matches ".x.swp" and its siblings ".x.swo" ... ".x.swa", ".x.swx".
func isVimSwap(name string) bool {
	if len(name) < 5 {
		return false
	}
	ext := name[len(name)-4:]
	return strings.HasPrefix(ext, ".sw") && ext[3] >= 'a' && ext[3] <= 'x'
}

// isRsyncTemp matches rsync's ".<name>.XXXXXX" (six alphanumerics).
func isRsyncTemp(name string) bool {
	i := strings.LastIndexByte(name, '.')
	return i > 1 && len(name)-i-1 == 6 && alnum(name[i+1:])
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func alnum(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
			return false
		}
	}
	return s != ""
}

// Inode numbers. Records and directories derive theirs from their identity,
// so numbers survive remounts; scratch files count up in their own range.
// Bit 63 marks scratch numbers, bit 62 directories; records have both clear
// (and are never 0 or 1, the FUSE root).
const (
	scratchInoBase uint64 = 1 << 63
	dirInoBit      uint64 = 1 << 62
	hashMask       uint64 = dirInoBit - 1
)

// A record's inode number grows with its id, because tools visit a big
// directory in inode order: gnulib's fts (grep -r, find, du, rm -r) sorts
// the entries of a directory of more than 10000 by d_ino. The kernel makes
// a collection's dentries in name order (ls, lookups), so numbers in name
// order let such a walk touch them in the order they lie in memory: that
// takes 22% off a warm grep -r and 40% off find (BENCHMARKS.md).
//
// Layout of the 62 record bits, for a lowercase UUIDv7 id:
//
//	bits 61..30  unix_ts_ms mod 2^32   (the order repeats every 49.7 days)
//	bits 29..0   the id's last 30 bits (the entropy counter of one process)
//
// plus a per-collection offset (mod 2^62), so the same id in two
// collections gets two numbers. Within one collection, two ids share a
// number only if they were made in the same millisecond (mod 2^32) with the
// same last 30 bits: never for ids of one PHP process in one millisecond
// (they count up), for ids of different processes with probability 2^-30
// per pair. An id in another letter case, or not a UUIDv7, hashes instead.
const (
	idTailBits = 30
	idTailMask = 1<<idTailBits - 1
	idTimeMask = 1<<(62-idTailBits) - 1
)

// recordIno derives a record's inode number from its collection and id. The
// collection is part of the identity: go-fuse shares one Inode between equal
// numbers and generations, and the same id may exist in two collections.
func recordIno(collection, id string) uint64 {
	h, ok := idOrderKey(id)
	if ok {
		h = (h + xxh3.HashString(collection)) & hashMask
	} else {
		var buf [160]byte // collection + NUL + id, on the stack for usual lengths
		key := append(append(append(buf[:0], collection...), 0), id...)
		h = xxh3.Hash(key) & hashMask
	}
	if h < 2 {
		h += 2
	}
	return h
}

// idOrderKey is the ordered part of recordIno for a lowercase UUIDv7 text
// (xxxxxxxx-xxxx-7xxx-yxxx-xxxxxxxxxxxx): the millisecond mod 2^32 above
// the last 30 bits. false for any other text.
func idOrderKey(id string) (uint64, bool) {
	if len(id) != uuidv7.TextLen {
		return 0, false
	}
	var ms, tail uint64
	for i := 0; i < len(id); i++ {
		c := id[i]
		var v uint64
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return 0, false
			}
			continue
		case c >= '0' && c <= '9':
			v = uint64(c - '0')
		case c >= 'a' && c <= 'f':
			v = uint64(c-'a') + 10
		default:
			return 0, false
		}
		if i < 13 {
			ms = ms<<4 | v // unix_ts_ms: 12 hex digits around the first dash
		}
		tail = tail<<4 | v // the low 64 bits are the last 16 hex digits
	}
	return (ms&idTimeMask)<<idTailBits | tail&idTailMask, true
}

// dirIno derives a directory's inode number from its path below the root.
func dirIno(rel string) uint64 {
	return xxh3.HashString(rel)&hashMask | dirInoBit
}

// maxNameLen is NAME_MAX: the kernel passes FUSE names up to 1024 bytes,
// and a longer name than any file system under ROOT can hold must fail
// with ENAMETOOLONG, not with a misleading EPERM or ENOENT.
const maxNameLen = 255

// nameErrno is ENAMETOOLONG for a name longer than NAME_MAX, else 0.
func nameErrno(name string) syscall.Errno {
	if len(name) > maxNameLen {
		return syscall.ENAMETOOLONG
	}
	return 0
}
