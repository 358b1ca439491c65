package fuseuring

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// EnableParam is the fuse module's switch for io_uring. It is off unless
// an administrator turns it on (echo Y > it, or fuse.enable_uring=1 on
// the kernel command line); the kernel offers FUSE_OVER_IO_URING in
// FUSE_INIT only while it is on.
const EnableParam = "/sys/module/fuse/parameters/enable_uring"

// Enabled reports whether the kernel offers FUSE over io_uring to new
// connections, with the reason when it does not.
func Enabled() (bool, error) {
	b, err := os.ReadFile(EnableParam)
	if err != nil {
		return false, fmt.Errorf("this kernel has no FUSE over io_uring (Linux 6.14+, CONFIG_FUSE_IO_URING): %w", err)
	}
	if !bytes.HasPrefix(bytes.TrimSpace(b), []byte("Y")) {
		return false, fmt.Errorf("FUSE over io_uring is off in this kernel: as root, echo Y > %s", EnableParam)
	}
	// io_uring itself may be off (kernel.io_uring_disabled) or filtered.
	r, err := newRing(1)
	if err != nil {
		return false, fmt.Errorf("FUSE over io_uring: %w", err)
	}
	r.close()
	return true, nil
}

// TurnOn turns the fuse module's io_uring switch on (root), for a test or
// benchmark run, and returns what puts it back as it was.
func TurnOn() (restore func(), err error) {
	old, err := os.ReadFile(EnableParam)
	if err != nil {
		return nil, fmt.Errorf("this kernel has no FUSE over io_uring (Linux 6.14+, CONFIG_FUSE_IO_URING): %w", err)
	}
	if err := os.WriteFile(EnableParam, []byte("Y"), 0); err != nil {
		return nil, fmt.Errorf("turn FUSE over io_uring on: %w", err)
	}
	return func() { os.WriteFile(EnableParam, old, 0) }, nil
}

// DevFuseFds lists this process's descriptors open on /dev/fuse. Where
// the kernel does not name a descriptor's connection in its fdinfo, a
// mount compares the lists before and after go-fuse opened its own, to
// learn which one is its connection's (mountDevFd).
func DevFuseFds() (map[int]bool, error) {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil, fmt.Errorf("list descriptors: %w", err)
	}
	fds := map[int]bool{}
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && target == "/dev/fuse" {
			fds[fd] = true
		}
	}
	return fds, nil
}
