package fuseuring

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unsafe"

	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/storhfs/storhfs/internal/fusectl"
)

// Attach serves a go-fuse mount's requests over io_uring. Its caller
// asked for it in FUSE_INIT (MountOptions.ExtraCapabilities with
// fuse.CAP_OVER_IO_URING), listed the process's /dev/fuse descriptors
// (devFds, DevFuseFds) before fuse.NewServer opened the mount's, and calls
// Attach once that server serves, before its WaitMount: WaitMount opens a
// file of the mount, which the kernel answers only once the queues are
// registered. On failure the caller unmounts.
//
// A fuse.ProtocolServer answers the requests with rawFS, the file system
// the go-fuse server has; that server keeps serving /dev/fuse (FORGET,
// INTERRUPT, notifications). If Attach fails, or a queue thread stops
// later, it aborts the connection (fusectl), which the kernel would
// otherwise hold shut (see Start).
func Attach(mountpoint string, rawFS fuse.RawFileSystem, opts *fuse.MountOptions, devFds map[int]bool, logger *log.Logger) (*Transport, error) {
	abort := func(why error) {
		logger.Printf("io_uring: %v; aborting the connection", why)
		if err := abortMount(mountpoint); err != nil {
			logger.Printf("io_uring: abort %s: %v", mountpoint, err)
		}
	}
	dev, err := mountDevFd(mountpoint, devFds)
	if err != nil {
		abort(err)
		return nil, err
	}
	ps := fuse.NewProtocolServer(rawFS, opts)
	primeProtocolServer(ps, opts)
	maxWrite := opts.MaxWrite
	if maxWrite == 0 {
		maxWrite = defaultMaxWrite
	}
	t, err := Start(dev, ps, maxWrite, logger, abort)
	if err != nil {
		abort(err)
		return nil, fmt.Errorf("io_uring: %w", err)
	}
	return t, nil
}

// abortMount aborts the FUSE connection mounted at mountpoint.
func abortMount(mountpoint string) error {
	minor, err := mountMinor(mountpoint)
	if err != nil {
		return err
	}
	return fusectl.Abort(minor)
}

// mountMinor is the connection (device minor) of the FUSE mount at
// mountpoint, from mountinfo, under its real path: the mountpoint's
// parent may be reached through a symlink; the mount itself is not looked
// at, it would not answer.
func mountMinor(mountpoint string) (uint32, error) {
	entries, err := fusectl.Mounts()
	if err != nil {
		return 0, err
	}
	e, ok := fusectl.Lookup(entries, mountpoint)
	if !ok {
		parent, err := filepath.EvalSymlinks(filepath.Dir(mountpoint))
		if err != nil {
			return 0, err
		}
		if e, ok = fusectl.Lookup(entries, filepath.Join(parent, filepath.Base(mountpoint))); !ok {
			return 0, fmt.Errorf("%s: %w", mountpoint, fusectl.ErrNotMounted)
		}
	}
	return e.Minor, nil
}

// mountDevFd is a /dev/fuse descriptor of the connection mounted at
// mountpoint: the one whose fdinfo names that connection (Linux shows
// fuse_connection there), or else the one go-fuse opened, not among
// devFds (then no other mount of the process may have opened or closed
// one meanwhile).
func mountDevFd(mountpoint string, devFds map[int]bool) (int, error) {
	minor, err := mountMinor(mountpoint)
	if err != nil {
		return 0, err
	}
	now, err := DevFuseFds()
	if err != nil {
		return 0, err
	}
	var fresh []int
	named := false
	for fd := range now {
		if conn, ok := fdConnection(fd); ok {
			if conn == minor {
				return fd, nil
			}
			named = true
		}
		if !devFds[fd] {
			fresh = append(fresh, fd)
		}
	}
	if named || len(fresh) != 1 {
		return 0, fmt.Errorf("no /dev/fuse descriptor of connection %d among %d (%d new)", minor, len(now), len(fresh))
	}
	return fresh[0], nil
}

// fdConnection reads the FUSE connection of /dev/fuse descriptor fd from
// its fdinfo.
func fdConnection(fd int) (uint32, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/fdinfo/%d", fd))
	if err != nil {
		return 0, false
	}
	return parseFdConnection(string(b))
}

// parseFdConnection finds "fuse_connection:\tN" in an fdinfo text.
func parseFdConnection(fdinfo string) (uint32, bool) {
	for _, line := range strings.Split(fdinfo, "\n") {
		if v, ok := strings.CutPrefix(line, "fuse_connection:"); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 32)
			return uint32(n), err == nil
		}
	}
	return 0, false
}

// primeProtocolServer gives ps a FUSE_INIT, as the kernel sends only one
// (to the go-fuse server). On Linux a request's layout depends on INIT only
// through SETXATTR_EXT, which no mount here asks for, so the protocol
// version io_uring needs (7.42) and the capabilities the mount asks for
// stand in for the kernel's (which go-fuse keeps unsynchronised).
func primeProtocolServer(ps *fuse.ProtocolServer, opts *fuse.MountOptions) {
	flags := opts.ExtraCapabilities
	init := fuse.InitIn{
		InHeader: fuse.InHeader{Length: uint32(unsafe.Sizeof(fuse.InitIn{})), Opcode: opInit, Unique: 1},
		Major:    7, Minor: 42, Flags: uint32(flags) | fuse.CAP_INIT_EXT, Flags2: uint32(flags >> 32),
	}
	in := unsafe.Slice((*byte)(unsafe.Pointer(&init)), unsafe.Sizeof(init))
	ps.HandleRequest([][]byte{in}, [][]byte{make([]byte, 4096)})
}

const (
	opInit          = 26      // FUSE_INIT
	defaultMaxWrite = 1 << 17 // go-fuse's MountOptions.MaxWrite when 0
)

// Mount mounts rawFS at mountpoint through go-fuse (fuse.NewServer) and
// serves it in the background: over io_uring when ioURing (opts then ask
// the kernel for it: fuseopts.Settings.IOUring), else over /dev/fuse. It
// returns once the mount serves (WaitMount); served is closed when
// go-fuse's Serve returns, the connection gone. On failure nothing stays
// mounted, and t, when not nil, are io_uring threads still ending (Done).
func Mount(mountpoint string, rawFS fuse.RawFileSystem, opts *fuse.MountOptions, ioURing bool, logger *log.Logger) (server *fuse.Server, t *Transport, served <-chan struct{}, err error) {
	var devFds map[int]bool
	if ioURing {
		if _, err := Enabled(); err != nil {
			return nil, nil, nil, err
		}
		if devFds, err = DevFuseFds(); err != nil {
			return nil, nil, nil, err
		}
	}
	server, err = fuse.NewServer(rawFS, mountpoint, opts)
	if err != nil {
		return nil, nil, nil, err
	}
	done := make(chan struct{})
	go func() {
		server.Serve()
		close(done)
	}()
	// go-fuse's WaitMount opens a file of the mount, which an io_uring
	// connection serves only once its queues are registered.
	if ioURing {
		t, err = Attach(mountpoint, rawFS, opts, devFds, logger)
	}
	if err == nil {
		err = server.WaitMount()
	}
	if err != nil {
		server.Unmount()
		return nil, t, nil, err
	}
	return server, t, done, nil
}
