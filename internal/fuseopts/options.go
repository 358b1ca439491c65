// Package fuseopts is the kernel and go-fuse settings of a storhfs mount,
// shared with the benchmark's FUSE floor (cmd/storhfs-bench), which must
// mount exactly as storhfs does.
package fuseopts

import (
	"log"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// CacheTimeout is the kernel's entry, attribute and negative cache
// lifetime: how long a change made outside the mount may stay unseen.
const CacheTimeout = time.Second

// Settings are what a mount's options depend on (fusefs.Config).
type Settings struct {
	FsName     string // shown by df/mount
	AllowOther bool   // the kernel lets other users in
	Debug      bool   // log every FUSE request
	ReadOnly   bool
	Logger     *log.Logger
	Direct     bool // mount with mount(2) (root) instead of fusermount3

	// DefaultPermissions: the kernel checks permission bits and owner
	// itself (default_permissions) instead of leaving it to the daemon.
	DefaultPermissions bool
	// IOUring asks the kernel for FUSE over io_uring in FUSE_INIT; the
	// requests then travel over internal/fuseuring once it is started.
	IOUring bool
	// NoOpen: the mount answers OPEN with ENOSYS (fusefs.Config.NoOpen).
	NoOpen bool
}

// Options are the kernel and go-fuse settings of a mount.
func Options(cfg Settings) *fs.Options {
	logger := cfg.Logger
	timeout := CacheTimeout
	mo := fuse.MountOptions{
		FsName:        cfg.FsName,
		Name:          "storhfs",
		AllowOther:    cfg.AllowOther,
		Debug:         cfg.Debug,
		Logger:        logger,
		DirectMount:   cfg.Direct,
		DisableXAttrs: true,
		// READDIRPLUS only when the kernel asks for it (READDIRPLUS_AUTO):
		// the first buffer of a listing, and the rest only once the
		// listed entries get stat-ed (ls -l), so `ls` and `find -name`
		// stay plain READDIR. A listing the kernel serves from its own
		// cache (FOPEN_CACHE_DIR, fusefs/dircache.go) sends neither.
		DisableReadDirPlus: false,
		// ATOMIC_O_TRUNC: open(O_TRUNC) arrives as one OPEN with the flag,
		// not as OPEN plus a SETATTR(size=0) without a handle, which could
		// not tell the truncating descriptor from other writers of the record.
		ExtraCapabilities: fuse.CAP_READDIRPLUS_AUTO | fuse.CAP_ATOMIC_O_TRUNC,
	}
	if cfg.IOUring {
		mo.ExtraCapabilities |= fuse.CAP_OVER_IO_URING
	}
	if cfg.NoOpen {
		// With no OPEN to carry the flag, ATOMIC_O_TRUNC would lose the
		// truncation of open(O_TRUNC): the kernel skips the SETATTR.
		mo.ExtraCapabilities &^= fuse.CAP_ATOMIC_O_TRUNC
	}
	if cfg.DefaultPermissions {
		mo.Options = append(mo.Options, "default_permissions")
	}
	if cfg.ReadOnly {
		mo.Options = append(mo.Options, "ro")
	}
	opts := &fs.Options{
		MountOptions: mo,
		// The root's inode number is FUSE's root id, as on other FUSE
		// mounts; 0 (go-fuse's default) reads as "no inode" in a listing.
		RootStableAttr:  &fs.StableAttr{Ino: fuse.FUSE_ROOT_ID},
		EntryTimeout:    &timeout,
		AttrTimeout:     &timeout,
		NegativeTimeout: &timeout,
		Logger:          logger,
	}
	return opts
}
