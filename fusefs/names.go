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

// Inode numbers. Records and directories hash their identity, so numbers
// survive remounts; scratch files count up in their own range. Bit 63 marks
// scratch numbers, bit 62 directories; records have both clear (and are
// never 0 or 1, the FUSE root).
const (
	scratchInoBase uint64 = 1 << 63
	dirInoBit      uint64 = 1 << 62
	hashMask       uint64 = dirInoBit - 1
)

// recordIno derives a record's inode number from its collection and id. The
// collection is part of the identity: go-fuse shares one Inode between equal
// numbers, and the same id may exist in two collections.
func recordIno(collection, id string) uint64 {
	var buf [160]byte // collection + NUL + id, on the stack for usual lengths
	key := append(append(append(buf[:0], collection...), 0), id...)
	h := xxh3.Hash(key) & hashMask
	if h < 2 {
		h += 2
	}
	return h
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
