package fuseuring

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The io_uring ABI used here (include/uapi/linux/io_uring.h): a ring set
// up with 128-byte SQEs (IORING_SETUP_SQE128, which FUSE's commands need
// for their 80-byte command area), its SQ and CQ rings in one mapping
// (IORING_FEAT_SINGLE_MMAP) and the SQE array in a second.
const (
	setupSQE128    = 1 << 10
	featSingleMmap = 1 << 0
	enterGetEvents = 1 << 0
	offSQRing      = 0
	offSQEs        = 0x10000000
	opURingCmd     = 46 // IORING_OP_URING_CMD
	sqeSize        = 128
	cqeSize        = 16

	// SQE fields (struct io_uring_sqe); a URING_CMD keeps its command
	// number where other operations keep the file offset, and its command
	// area starts at byte 48.
	sqeOpcode   = 0
	sqeFd       = 4
	sqeCmdOp    = 8
	sqeAddr     = 16
	sqeLen      = 24
	sqeUserData = 32
	sqeCmd      = 48
)

type sqRingOffsets struct {
	Head, Tail, RingMask, RingEntries, Flags, Dropped, Array, Resv1 uint32
	UserAddr                                                        uint64
}

type cqRingOffsets struct {
	Head, Tail, RingMask, RingEntries, Overflow, Cqes, Flags, Resv1 uint32
	UserAddr                                                        uint64
}

type ringParams struct {
	SqEntries, CqEntries, Flags, SqThreadCPU, SqThreadIdle, Features, WqFd uint32
	Resv                                                                   [3]uint32
	SqOff                                                                  sqRingOffsets
	CqOff                                                                  cqRingOffsets
}

// ring is one io_uring, used by one thread only, with one command in
// flight at a time.
type ring struct {
	fd      int
	rings   []byte // SQ and CQ rings (shared with the kernel)
	sqes    []byte
	sqHead  *uint32
	sqTail  *uint32
	sqMask  uint32
	sqArray []uint32
	cqHead  *uint32
	cqTail  *uint32
	cqMask  uint32
	cqes    []byte
}

func newRing(entries uint32) (*ring, error) {
	var p ringParams
	p.Flags = setupSQE128
	fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(entries), uintptr(unsafe.Pointer(&p)), 0)
	if errno != 0 {
		return nil, fmt.Errorf("io_uring_setup: %w", errno)
	}
	r := &ring{fd: int(fd)}
	if p.Features&featSingleMmap == 0 {
		r.close()
		return nil, fmt.Errorf("io_uring_setup: the kernel lacks IORING_FEAT_SINGLE_MMAP")
	}
	size := max(int(p.SqOff.Array)+int(p.SqEntries)*4, int(p.CqOff.Cqes)+int(p.CqEntries)*cqeSize)
	var err error
	if r.rings, err = unix.Mmap(r.fd, offSQRing, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE); err != nil {
		r.close()
		return nil, fmt.Errorf("mmap io_uring rings: %w", err)
	}
	if r.sqes, err = unix.Mmap(r.fd, offSQEs, int(p.SqEntries)*sqeSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE); err != nil {
		r.close()
		return nil, fmt.Errorf("mmap io_uring SQEs: %w", err)
	}
	word := func(off uint32) *uint32 { return (*uint32)(unsafe.Pointer(&r.rings[off])) }
	r.sqHead, r.sqTail, r.sqMask = word(p.SqOff.Head), word(p.SqOff.Tail), *word(p.SqOff.RingMask)
	r.sqArray = unsafe.Slice(word(p.SqOff.Array), p.SqEntries)
	r.cqHead, r.cqTail, r.cqMask = word(p.CqOff.Head), word(p.CqOff.Tail), *word(p.CqOff.RingMask)
	r.cqes = r.rings[p.CqOff.Cqes : int(p.CqOff.Cqes)+int(p.CqEntries)*cqeSize]
	return r, nil
}

func (r *ring) close() {
	if r.sqes != nil {
		unix.Munmap(r.sqes)
	}
	if r.rings != nil {
		unix.Munmap(r.rings)
	}
	unix.Close(r.fd)
}

// nextSQE returns the next free SQE, zeroed; push publishes it.
func (r *ring) nextSQE() []byte {
	idx := atomic.LoadUint32(r.sqTail) & r.sqMask
	sqe := r.sqes[idx*sqeSize : (idx+1)*sqeSize]
	clear(sqe)
	r.sqArray[idx] = idx
	return sqe
}

func (r *ring) push() { atomic.AddUint32(r.sqTail, 1) }

// submit hands what was pushed to the kernel without waiting.
func (r *ring) submit() error {
	for {
		pending := atomic.LoadUint32(r.sqTail) - atomic.LoadUint32(r.sqHead)
		_, _, errno := unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(pending), 0, 0, 0, 0)
		switch errno {
		case 0:
			return nil
		case unix.EINTR:
			continue
		}
		return fmt.Errorf("io_uring_enter: %w", errno)
	}
}

// wait submits what was pushed and not yet taken by the kernel, and
// returns once a completion is there. EINTR (the Go runtime's preemption
// signals) and a wait cut short after the submission only repeat it.
func (r *ring) wait() error {
	for atomic.LoadUint32(r.cqHead) == atomic.LoadUint32(r.cqTail) {
		pending := atomic.LoadUint32(r.sqTail) - atomic.LoadUint32(r.sqHead)
		_, _, errno := unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(pending), 1, enterGetEvents, 0, 0)
		if errno != 0 && errno != unix.EINTR {
			return fmt.Errorf("io_uring_enter: %w", errno)
		}
	}
	return nil
}

// peek reads the oldest completion's result, leaving it in place.
func (r *ring) peek() (res int32, ok bool) {
	head := atomic.LoadUint32(r.cqHead)
	if head == atomic.LoadUint32(r.cqTail) {
		return 0, false
	}
	return *(*int32)(unsafe.Pointer(&r.cqes[(head&r.cqMask)*cqeSize+8])), true
}

// reap takes the oldest completion, if any.
func (r *ring) reap() (userData uint64, res int32, ok bool) {
	head := atomic.LoadUint32(r.cqHead)
	if head == atomic.LoadUint32(r.cqTail) {
		return 0, 0, false
	}
	cqe := r.cqes[(head&r.cqMask)*cqeSize:]
	userData = *(*uint64)(unsafe.Pointer(&cqe[0]))
	res = *(*int32)(unsafe.Pointer(&cqe[8]))
	atomic.StoreUint32(r.cqHead, head+1)
	return userData, res, true
}

func put32(b []byte, off int, v uint32) { *(*uint32)(unsafe.Pointer(&b[off])) = v }
func put64(b []byte, off int, v uint64) { *(*uint64)(unsafe.Pointer(&b[off])) = v }
