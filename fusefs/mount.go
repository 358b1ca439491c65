package fusefs

import (
	"context"
	"errors"
	"log"
	"log/slog"
	"os"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/internal/fusectl"
	"github.com/storhfs/storhfs/internal/fuseopts"
	"github.com/storhfs/storhfs/internal/fuseuring"
)

// Config describes one mount.
type Config struct {
	Catalog    Catalog
	FsName     string // shown by df/mount; usually the storage root path
	ReadOnly   bool   // every mutation fails with EROFS
	AllowOther bool   // let other users in (with default_permissions)
	Debug      bool   // log every FUSE request

	// AllowRoot lets root in besides the user the daemon runs as
	// (allow_root: the kernel lets everyone in, rootAndOwnerFS refuses
	// the others). Not together with AllowOther.
	AllowRoot bool
	// DefaultPermissions has the kernel check every access against the
	// permission bits and owner shown (always on with AllowOther).
	DefaultPermissions bool
	// Ownership is the owner and permission bits shown for every file
	// (uid=, gid=, umask=; ownership.go).
	Ownership Ownership

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
	// IOUring serves the kernel's requests over io_uring (FUSE over
	// io_uring, Linux 6.14+, with the fuse module's enable_uring on) rather
	// than read(2) and write(2) on /dev/fuse: a request then costs about
	// half as much (uring.go). Mount fails if the kernel does not offer it.
	IOUring bool
	// NoOpen has the kernel send no OPEN for any file of a read-write mount
	// (a read-only mount never gets one): a warm read then costs one
	// request (its close's FLUSH) instead of OPEN and RELEASE, and writes
	// are buffered per file node and committed when a writing process
	// closes (nodewrites.go says what that gives up).
	NoOpen bool
	// MaxRecordNodes bounds the record nodes the kernel may hold at once
	// (nodecap.go): past it, the oldest entries are invalidated so that the
	// kernel forgets them. 0: no bound.
	MaxRecordNodes int
	// Logger receives the mount's warnings and errors when Log is nil.
	Logger *log.Logger
	// SharedStorage forces the mode of a ROOT that other hosts write too
	// (detected for network, cluster and FUSE file systems: fsutil.SharedFS):
	// inotify does not see their changes, so records keep the short
	// kernel caches and a poller looks for changes every PollInterval
	// (poll.go). The catalog's stores must then judge pids as
	// fsutil.ManyHosts (the caller's part).
	SharedStorage bool
	// PollInterval is the poller's interval (0: DefaultPollInterval).
	PollInterval time.Duration
	// Log, when set, is the mount's leveled log (and Logger is unused):
	// warnings and refusals at slog.LevelWarn, mounts, unmounts and
	// commits at slog.LevelInfo, FUSE traffic at slog.LevelDebug (which
	// turns Debug on).
	Log *slog.Logger
}

// logs returns the mount's leveled events log, the logger of its
// warnings and the logger go-fuse gets (FUSE traffic when debugging).
func (cfg *Config) logs() (events *slog.Logger, warnings, fuseLog *log.Logger) {
	if cfg.Log == nil {
		warnings = cfg.Logger
		if warnings == nil {
			warnings = log.New(os.Stderr, "storhfs: ", log.LstdFlags)
		}
		return slog.New(slog.DiscardHandler), warnings, warnings
	}
	warnings = slog.NewLogLogger(cfg.Log.Handler(), slog.LevelWarn)
	if cfg.Log.Enabled(context.Background(), slog.LevelDebug) {
		cfg.Debug = true
		return cfg.Log, warnings, slog.NewLogLogger(cfg.Log.Handler(), slog.LevelDebug)
	}
	return cfg.Log, warnings, warnings
}

// Mounted is a live mount.
type Mounted struct {
	Mountpoint string
	server     *fuse.Server
	state      *mountState
	gate       *requestGate
	watcher    *watcher             // nil with NoWatch
	poller     *poller              // on shared storage (Config.SharedStorage)
	mode       string               // what Mode reports
	directly   bool                 // mounted with mount(2) (root), not fusermount
	served     <-chan struct{}      // closed once the kernel connection is gone
	uring      *fuseuring.Transport // with Config.IOUring
	conn       fusectl.Connection   // the connection in fusectl, when hasConn
	hasConn    bool
}

// cacheTimeout is the kernel's entry, attribute and negative cache
// lifetime: how long a change made outside the mount may stay unseen
// where the watcher does not see every change (records of covered
// collections are cached for Config.CacheTimeout: coverage.go).
const cacheTimeout = fuseopts.CacheTimeout

// Mount mounts the catalog's storage root at mountpoint and serves it in the
// background. As root it calls mount(2) directly, otherwise fusermount3.
func Mount(mountpoint string, cfg Config) (*Mounted, error) {
	if cfg.AllowRoot && cfg.AllowOther {
		return nil, errors.New("allow_root and allow_other exclude each other")
	}
	events, logger, fuseLog := cfg.logs()
	state := newMountState(cfg.Catalog, cfg.ReadOnly, logger, cfg.MaxBufferBytes)
	state.events = events
	state.noOpen = cfg.ReadOnly || cfg.NoOpen
	if cfg.NoOpen && !cfg.ReadOnly {
		state.refusals.changed = state.errorsChanged
	}
	state.nodeCap = newRecordNodeCap(cfg.MaxRecordNodes, state)
	shared := cfg.SharedStorage || fsutil.SharedFS(cfg.Catalog.Path(""))
	if !cfg.NoWatch && !shared {
		state.coverage.timeout = cfg.CacheTimeout
		if state.coverage.timeout == 0 {
			state.coverage.timeout = DefaultCacheTimeout
		}
		if state.coverage.timeout <= cacheTimeout {
			state.coverage.timeout = 0
		}
	}
	direct := os.Geteuid() == 0
	opts := fuseopts.Options(fuseopts.Settings{
		FsName: cfg.FsName, AllowOther: cfg.AllowOther || cfg.AllowRoot, Debug: cfg.Debug, ReadOnly: cfg.ReadOnly,
		Logger: fuseLog, Direct: direct, DefaultPermissions: cfg.DefaultPermissions || cfg.AllowOther,
		IOUring: cfg.IOUring, NoOpen: state.noOpen,
	})
	root := rootNode(state)
	gate := &requestGate{}
	var rawFS fuse.RawFileSystem = &mountFS{RawFileSystem: fs.NewNodeFS(root, opts), gate: gate, statDir: cfg.Catalog.Path(""), noOpen: state.noOpen, noFlush: cfg.ReadOnly, writtenNodes: &state.writtenNodes, owners: cfg.Ownership, trim: newForgetTrim()}
	if cfg.AllowRoot {
		rawFS = &rootAndOwnerFS{RawFileSystem: rawFS, owner: uint32(os.Getuid())}
	}
	mt := &Mounted{Mountpoint: mountpoint, state: state, gate: gate, directly: direct}
	var err error
	mt.server, mt.uring, mt.served, err = fuseuring.Mount(mountpoint, rawFS, &opts.MountOptions, cfg.IOUring, logger)
	if err != nil {
		mt.awaitUring()
		state.closeAll()
		return nil, err
	}
	// From /proc/self/mountinfo: stat-ing its own mount from the serving
	// process is best avoided.
	if minor, err := fusectl.MinorOf(mountpoint); err == nil {
		mt.conn, mt.hasConn = fusectl.Conn(minor), true
	}
	mt.mode = "local storage: watching for outside changes"
	if !cfg.NoWatch {
		mt.watcher, err = startWatcher(state, root.EmbeddedInode())
		if err != nil {
			logger.Printf("watch %s: %v (outside changes show up after the 1 s cache timeout)", cfg.FsName, err)
		}
	}
	switch {
	case shared && mt.watcher != nil:
		mt.poller = newPoller(mt.watcher, cfg.PollInterval)
		mt.poller.start()
		mt.mode = "shared storage: polling for other hosts' changes every " + mt.poller.interval.String()
	case shared:
		mt.mode = "shared storage: not polling (--no-watch); outside changes show within " + cacheTimeout.String()
	case cfg.NoWatch:
		mt.mode = "not watching (--no-watch); outside changes show within " + cacheTimeout.String()
	}
	if mt.uring != nil {
		mt.mode += "; requests over io_uring"
	}
	state.mountpoint = mountpoint
	events.Info("mounted", "root", cfg.FsName, "mountpoint", mountpoint, "read_only", cfg.ReadOnly)
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
		return &logNode{m: m, store: m.catalog.OpenLog("")}
	case KindQueue:
		return &queueNode{m: m, store: m.catalog.OpenQueue("")}
	}
	return &rootDir{dirNode: &dirNode{m: m}}
}

// Wait blocks until the file system is unmounted, by Unmount or from
// outside (umount, fusermount3 -u), and every store is closed (writer
// markers removed). Every request the kernel sent has been answered then.
func (mt *Mounted) Wait() {
	<-mt.served
	mt.awaitUring()
	mt.stopWatching()
	mt.stopNotifying()
	mt.state.closeAll()
}

// Mode says how the mount learns of changes made outside it (the ready line).
func (mt *Mounted) Mode() string { return mt.mode }

func (mt *Mounted) stopWatching() {
	if mt.poller != nil {
		mt.poller.stop()
	}
	if mt.watcher != nil {
		mt.watcher.close()
	}
}
