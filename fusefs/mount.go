package fusefs

import (
	"log"
	"os"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"storhfs/internal/fuseopts"
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
// lifetime (internal/fuseopts).
const cacheTimeout = fuseopts.CacheTimeout

// Mount mounts the catalog's storage root at mountpoint and serves it in the
// background. As root it calls mount(2) directly, otherwise fusermount3.
func Mount(mountpoint string, cfg Config) (*Mounted, error) {
	logger := cfg.Logger
	if logger == nil {
		logger = log.New(os.Stderr, "storhfs: ", log.LstdFlags)
	}
	state := newMountState(cfg.Catalog, cfg.ReadOnly, logger, cfg.MaxBufferBytes)
	direct := os.Geteuid() == 0
	opts := fuseopts.Options(fuseopts.Settings{
		FsName: cfg.FsName, AllowOther: cfg.AllowOther, Debug: cfg.Debug, ReadOnly: cfg.ReadOnly,
		Logger: logger, Direct: direct,
	})
	root := rootNode(state)
	gate := &requestGate{}
	rawFS := &mountFS{RawFileSystem: fs.NewNodeFS(root, opts), gate: gate, statDir: cfg.Catalog.Path("")}
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
