package fusefs

import (
	"log"
	"os"
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
	// CacheTimeout is how long the kernel caches the entries, attributes
	// and pages of records whose every change the watcher sees (a local
	// ROOT): it invalidates what changes. 0: DefaultCacheTimeout; with
	// NoWatch, or below cacheTimeout, records keep cacheTimeout.
	CacheTimeout time.Duration
	// MaxBufferBytes bounds the memory of write buffers, scratch files and
	// commits together (0: DefaultMaxBufferBytes; see memBudget); beyond
	// it writes fail with ENOSPC. Larger unsaved files spill to ROOT's disk.
	MaxBufferBytes int64
	Logger         *log.Logger
}

// Mounted is a live mount.
type Mounted struct {
	Mountpoint string
	server     *fuse.Server
	state      *mountState
	gate       *requestGate
	watcher    *watcher      // nil with NoWatch
	directly   bool          // mounted with mount(2) (root), not fusermount
	served     chan struct{} // closed once the kernel connection is gone
	connDir    string        // the connection's fusectl directory; "" if unknown
}

// cacheTimeout is the kernel's entry, attribute and negative cache
// lifetime: how long a change made outside the mount may stay unseen
// where the watcher does not see every change (records of covered
// collections are cached for Config.CacheTimeout: coverage.go).
const cacheTimeout = time.Second

// Mount mounts the catalog's storage root at mountpoint and serves it in the
// background. As root it calls mount(2) directly, otherwise fusermount3.
func Mount(mountpoint string, cfg Config) (*Mounted, error) {
	logger := cfg.Logger
	if logger == nil {
		logger = log.New(os.Stderr, "storhfs: ", log.LstdFlags)
	}
	state := newMountState(cfg.Catalog, cfg.ReadOnly, logger, cfg.MaxBufferBytes)
	if !cfg.NoWatch {
		state.coverage.timeout = cfg.CacheTimeout
		if state.coverage.timeout == 0 {
			state.coverage.timeout = DefaultCacheTimeout
		}
		if state.coverage.timeout <= cacheTimeout {
			state.coverage.timeout = 0
		}
	}
	direct := os.Geteuid() == 0
	opts := MountOptions(cfg, logger, direct)
	root := rootNode(state)
	gate := &requestGate{}
	rawFS := &mountFS{RawFileSystem: fs.NewNodeFS(root, opts), gate: gate, statDir: cfg.Catalog.Path(""), noOpen: state.noOpen}
	server, err := fuse.NewServer(rawFS, mountpoint, &opts.MountOptions)
	if err != nil {
		state.closeAll()
		return nil, err
	}
	mt := &Mounted{Mountpoint: mountpoint, server: server, state: state, gate: gate, directly: direct, served: make(chan struct{})}
	go func() {
		server.Serve()
		close(mt.served)
	}()
	if err := server.WaitMount(); err != nil {
		state.closeAll()
		return nil, err
	}
	mt.connDir = connectionDir(mountpoint)
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

// rootNode is the storage root: normally a namespace; a collection when
// ROOT itself is one. Namespace and collection roots also answer
// .storhfs (control.go).
func rootNode(m *mountState) fs.InodeEmbedder {
	switch m.catalog.Kind("") {
	case KindDocStore:
		return &collectionNode{m: m}
	case KindLog:
		return &logNode{m: m, dir: m.catalog.Path("")}
	case KindQueue:
		return &queueNode{m: m, dir: m.catalog.Path("")}
	}
	return &rootDir{dirNode: &dirNode{m: m}}
}

// Wait blocks until the file system is unmounted, by Unmount or from
// outside (umount, fusermount3 -u), and every store is closed (writer
// markers removed). Every request the kernel sent has been answered then.
func (mt *Mounted) Wait() {
	<-mt.served
	mt.stopWatching()
	mt.stopNotifying()
	mt.state.closeAll()
}

func (mt *Mounted) stopWatching() {
	if mt.watcher != nil {
		mt.watcher.close()
	}
}
