package integration

import (
	"fmt"
	"os"
)

// ioUring: with STORHFS_TEST_IO_URING=1 every mount of this build serves
// over io_uring (--io-uring), so the whole suite runs against that
// transport too (make test runs it both ways).
var ioUring = os.Getenv("STORHFS_TEST_IO_URING") == "1"

// enableURingParam is the fuse module's switch for FUSE over io_uring.
const enableURingParam = "/sys/module/fuse/parameters/enable_uring"

// useIOUring turns the kernel's FUSE io_uring switch on for an io_uring
// run and returns what puts it back.
func useIOUring() (restore func(), err error) {
	if !ioUring {
		return func() {}, nil
	}
	old, err := os.ReadFile(enableURingParam)
	if err != nil {
		return nil, fmt.Errorf("STORHFS_TEST_IO_URING=1 needs FUSE over io_uring (Linux 6.14+): %w", err)
	}
	if err := os.WriteFile(enableURingParam, []byte("Y"), 0); err != nil {
		return nil, fmt.Errorf("STORHFS_TEST_IO_URING=1: turn on %s: %w", enableURingParam, err)
	}
	return func() { os.WriteFile(enableURingParam, old, 0) }, nil
}
