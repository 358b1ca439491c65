package fuseuring

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// entry is one registered ring entry: the kernel writes a request into its
// header and payload buffers and reads the reply from the same place. The
// buffers are mapped outside the Go heap, since the kernel keeps their
// addresses from registration on.
type entry struct {
	header   []byte
	payload  []byte
	spare    []byte // a reply's payload while the request's is still read (Go heap)
	iov      *[2]unix.Iovec
	iovBytes []byte
}

func newEntry(payloadSize int) (*entry, error) {
	e := &entry{}
	var err error
	if e.header, err = mapAnon(hdrSize); err == nil {
		e.payload, err = mapAnon(payloadSize)
	}
	if err == nil {
		e.iovBytes, err = mapAnon(int(unsafe.Sizeof([2]unix.Iovec{})))
	}
	if err != nil {
		e.free()
		return nil, fmt.Errorf("ring entry buffers: %w", err)
	}
	e.iov = (*[2]unix.Iovec)(unsafe.Pointer(&e.iovBytes[0]))
	e.iov[0] = unix.Iovec{Base: &e.header[0], Len: uint64(len(e.header))}
	e.iov[1] = unix.Iovec{Base: &e.payload[0], Len: uint64(len(e.payload))}
	return e, nil
}

func mapAnon(n int) ([]byte, error) {
	return unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
}

func (e *entry) free() {
	for _, b := range [][]byte{e.header, e.payload, e.iovBytes} {
		if b != nil {
			unix.Munmap(b)
		}
	}
}

// scratch is a buffer as large as the payload, for replies to requests
// that carry a payload of their own (the kernel never sees it).
func (e *entry) scratch() []byte {
	if e.spare == nil {
		e.spare = make([]byte, len(e.payload))
	}
	return e.spare
}

// command puts a FUSE io_uring command for this entry in a ring; the same
// command is put again when the kernel completes it with EINTR or EAGAIN
// without taking it.
type command func(r *ring)

func (e *entry) register(q *queue) command {
	return func(r *ring) { e.prep(r, q, cmdRegister, 0) }
}

// commitAndFetch hands back the reply now in e and asks for the next
// request; the kernel knows the request by its commit id.
func (e *entry) commitAndFetch(q *queue) command {
	id := *(*uint64)(unsafe.Pointer(&e.header[hdrCommitID]))
	return func(r *ring) { e.prep(r, q, cmdCommitAndFetch, id) }
}

// prep writes the SQE: IORING_OP_URING_CMD on /dev/fuse, and in its command
// area struct fuse_uring_cmd_req {flags, commit_id, qid}.
func (e *entry) prep(r *ring, q *queue, cmd uint32, commitID uint64) {
	sqe := r.nextSQE()
	sqe[sqeOpcode] = opURingCmd
	put32(sqe, sqeFd, uint32(q.t.dev))
	put32(sqe, sqeCmdOp, cmd)
	if cmd == cmdRegister {
		put64(sqe, sqeAddr, uint64(uintptr(unsafe.Pointer(e.iov))))
		put32(sqe, sqeLen, 2)
	}
	put64(sqe, sqeCmd+8, commitID)
	*(*uint16)(unsafe.Pointer(&sqe[sqeCmd+16])) = q.qid
	r.push()
}
