package integration

import (
	"fmt"
	"os"

	"github.com/storhfs/storhfs/internal/fuseuring"
)

// ioUring: with STORHFS_TEST_IO_URING=1 every mount of this build serves
// over io_uring (--io-uring), so the whole suite runs against that
// transport too (make test runs it both ways).
var ioUring = os.Getenv("STORHFS_TEST_IO_URING") == "1"

// useIOUring turns the kernel's FUSE io_uring switch on for an io_uring
// run and returns what puts it back.
func useIOUring() (restore func(), err error) {
	if !ioUring {
		return func() {}, nil
	}
	restore, err = fuseuring.TurnOn()
	if err != nil {
		return nil, fmt.Errorf("STORHFS_TEST_IO_URING=1: %w", err)
	}
	return restore, nil
}
