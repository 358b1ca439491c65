package fusefs

import (
	"fmt"
	"log"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// Config describes one mount.
type Config struct {
	Catalog    Catalog
	FsName     string // shown by df/mount; usually the storage root path
	ReadOnly   bool   // every mutation fails with EROFS
	AllowOther bool   // let other users in (with default_permissions)
	Debug      bool   // log every FUSE request
	// NoWatch turns off the watch of ROOT (watch.go): changes made by
	// other processes then show up only when the 1 s kernel caches expire.
	NoWatch bool
	// MaxBufferBytes bounds the memory of write buffers and scratch files
	// together (0: DefaultMaxBufferBytes); beyond it writes fail with ENOSPC.
	MaxBufferBytes int64
	Logger         *log.Logger
}

// Mounted is a live mount.
type Mounted struct {
	Mountpoint string
	server     *fuse.Server
	state      *mountState
	watcher    *watcher // nil with NoWatch
	directly   bool     // mounted with mount(2) (root), not fusermount
}

// cacheTimeout is the kernel's entry, attribute and negative cache
// lifetime: how long a change made outside the mount may stay unseen.
const cacheTimeout = time.Second

// Mount mounts the catalog's storage root at mountpoint and serves it in the
// background. As root it calls mount(2) directly, otherwise fusermount3.
func Mount(mountpoint string, cfg Config) (*Mounted, error) {
	logger := cfg.Logger
	if logger == nil {
		logger = log.New(os.Stderr, "storhfs: ", log.LstdFlags)
	}
	state := newMountState(cfg.Catalog, cfg.ReadOnly, logger, cfg.MaxBufferBytes)
	direct := os.Geteuid() == 0
	opts := MountOptions(cfg, logger, direct)
	root := rootNode(state)
	server, err := fs.Mount(mountpoint, root, opts)
	if err != nil {
		state.closeAll()
		return nil, err
	}
	mt := &Mounted{Mountpoint: mountpoint, server: server, state: state, directly: direct}
	if !cfg.NoWatch {
		mt.watcher, err = startWatcher(state, root.EmbeddedInode())
		if err != nil {
			logger.Printf("watch %s: %v (outside changes show up after the 1 s cache timeout)", cfg.FsName, err)
		}
	}
	return mt, nil
}

// MountOptions are the kernel and go-fuse settings of a mount; direct
// mounts with mount(2) instead of fusermount3. Exported for the benchmark's
// FUSE floor, which must mount exactly as storhfs does.
func MountOptions(cfg Config, logger *log.Logger, direct bool) *fs.Options {
	timeout := cacheTimeout
	mo := fuse.MountOptions{
		FsName:        cfg.FsName,
		Name:          "storhfs",
		AllowOther:    cfg.AllowOther,
		Debug:         cfg.Debug,
		Logger:        logger,
		DirectMount:   direct,
		DisableXAttrs: true,
		// READDIRPLUS only when the kernel asks for it (READDIRPLUS_AUTO):
		// the first buffer of a listing, and the rest only once the
		// listed entries get stat-ed (ls -l), so `ls` and `find -name`
		// stay plain READDIR. A listing the kernel serves from its own
		// cache (FOPEN_CACHE_DIR, dircache.go) sends neither.
		DisableReadDirPlus: false,
		// ATOMIC_O_TRUNC: open(O_TRUNC) arrives as one OPEN with the flag,
		// not as OPEN plus a SETATTR(size=0) without a handle, which could
		// not tell the truncating descriptor from other writers of the record.
		ExtraCapabilities: fuse.CAP_READDIRPLUS_AUTO | fuse.CAP_ATOMIC_O_TRUNC,
	}
	if cfg.AllowOther {
		mo.Options = append(mo.Options, "default_permissions")
	}
	if cfg.ReadOnly {
		mo.Options = append(mo.Options, "ro")
	}
	opts := &fs.Options{
		MountOptions:    mo,
		EntryTimeout:    &timeout,
		AttrTimeout:     &timeout,
		NegativeTimeout: &timeout,
		Logger:          logger,
	}
	return opts
}

// rootNode is the storage root: normally a namespace; a collection when
// ROOT itself is one.
func rootNode(m *mountState) fs.InodeEmbedder {
	switch m.catalog.Kind("") {
	case KindDocStore:
		return &collectionNode{m: m}
	case KindLog:
		return &logNode{m: m, dir: m.catalog.Path("")}
	case KindQueue:
		return &queueNode{m: m, dir: m.catalog.Path("")}
	}
	return &dirNode{m: m}
}

// Wait blocks until the file system is unmounted (by Unmount or from outside).
func (mt *Mounted) Wait() {
	mt.server.Wait()
	mt.stopWatching()
	mt.stopNotifying()
}

func (mt *Mounted) stopWatching() {
	if mt.watcher != nil {
		mt.watcher.close()
	}
}

// Unmount detaches the mount and closes the stores. When files are still
// open (EBUSY) it falls back to a lazy unmount: the mount point is free at
// once, and open descriptors fail once this process exits.
func (mt *Mounted) Unmount() error {
	defer mt.state.closeAll()
	mt.stopWatching()
	mt.stopNotifying()
	err := mt.server.Unmount()
	if err == nil {
		return nil
	}
	if lazyErr := mt.lazyUnmount(); lazyErr != nil {
		return fmt.Errorf("unmount %s: %v; lazy unmount: %w", mt.Mountpoint, err, lazyErr)
	}
	return nil
}

func (mt *Mounted) lazyUnmount() error {
	if mt.directly {
		if err := syscall.Unmount(mt.Mountpoint, syscall.MNT_DETACH); err == nil {
			return nil
		}
	}
	for _, bin := range []string{"fusermount3", "fusermount"} {
		if path, err := exec.LookPath(bin); err == nil {
			out, err := exec.Command(path, "-u", "-z", mt.Mountpoint).CombinedOutput()
			if err != nil {
				return fmt.Errorf("%s -u -z: %v: %s", bin, err, out)
			}
			return nil
		}
	}
	return fmt.Errorf("no fusermount3 for a lazy unmount")
}
