package main

import (
	"fmt"
	"log"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// The io_uring ABI (include/uapi/linux/io_uring.h) and FUSE's use of it
// (include/uapi/linux/fuse.h, protocol 7.42).
const (
	setupSQE128    = 1 << 10
	featSingleMmap = 1 << 0
	enterGetEvents = 1 << 0
	offSQRing      = 0
	offCQRing      = 0x8000000
	offSQEs        = 0x10000000
	opURingCmd     = 46
	sqeSize        = 128
	cqeSize        = 16

	cmdRegister       = 1
	cmdCommitAndFetch = 2

	// fuse_uring_req_header: in_out (the in- or out-header), op_in (the
	// opcode's own argument struct), then fuse_uring_ent_in_out.
	hdrInOut     = 0
	hdrOpIn      = 128
	hdrEntInOut  = 256
	hdrSize      = 288
	payloadBytes = maxWrite + 4096
)

type sqringOffsets struct {
	Head, Tail, RingMask, RingEntries, Flags, Dropped, Array, Resv1 uint32
	UserAddr                                                        uint64
}

type cqringOffsets struct {
	Head, Tail, RingMask, RingEntries, Overflow, Cqes, Flags, Resv1 uint32
	UserAddr                                                        uint64
}

type uringParams struct {
	SqEntries, CqEntries, Flags, SqThreadCPU, SqThreadIdle, Features, WqFd uint32
	Resv                                                                   [3]uint32
	SqOff                                                                  sqringOffsets
	CqOff                                                                  cqringOffsets
}

type entInOut struct {
	Flags     uint64
	CommitID  uint64
	PayloadSz uint32
	Padding   uint32
	Reserved  uint64
}

// ring is one io_uring serving one FUSE queue (one CPU).
type ring struct {
	fd                     int
	qid                    uint16
	sqHead, sqTail, sqMask *uint32
	sqArray                []uint32
	sqes                   []byte
	cqHead, cqTail, cqMask *uint32
	cqes                   []byte
	pending                uint32 // SQEs written but not yet submitted
	entries                []*ringEntry
}

// ringEntry is one registered request slot: the kernel writes a request's
// headers and payload into it and reads the reply from the same place.
type ringEntry struct {
	header  []byte
	payload []byte
	iov     [2]unix.Iovec
}

func possibleCPUs() (int, error) {
	b, err := os.ReadFile("/sys/devices/system/cpu/possible")
	if err != nil {
		return 0, err
	}
	s := strings.TrimSpace(string(b))
	last := s[strings.LastIndexAny(s, "-,")+1:]
	n, err := strconv.Atoi(last)
	return n + 1, err
}

// startRings registers depth entries on every CPU queue, one thread per
// queue; the kernel moves requests to io_uring once every queue has one.
func (c *conn) startRings(depth int, pin bool) error {
	cpus, err := possibleCPUs()
	if err != nil {
		return fmt.Errorf("possible CPUs: %w", err)
	}
	started := make(chan error)
	for qid := range cpus {
		go c.serveQueue(uint16(qid), depth, pin, started)
	}
	for range cpus {
		if err := <-started; err != nil {
			return err
		}
	}
	return nil
}

func (c *conn) serveQueue(qid uint16, depth int, pin bool, started chan<- error) {
	runtime.LockOSThread()
	if pin {
		var set unix.CPUSet
		set.Set(int(qid))
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			log.Printf("queue %d: pin: %v", qid, err)
		}
	}
	r, err := newRing(qid, uint32(depth))
	if err == nil {
		err = r.registerAll(int(c.dev.Fd()), depth)
	}
	if err == nil {
		err = r.submit(0)
	}
	started <- err
	if err != nil {
		return
	}
	scratch := make([]byte, payloadBytes)
	argBuf := make([]byte, payloadBytes+hdrSize)
	for {
		if err := r.submit(1); err != nil {
			log.Printf("queue %d: %v", qid, err)
			os.Exit(1)
		}
		for r.nextCQE(func(userData uint64, res int32) {
			e := r.entries[userData]
			if res < 0 {
				if res == -int32(unix.ENOTCONN) || res == -int32(unix.ENODEV) {
					c.exit(0)
				}
				log.Printf("queue %d entry %d: %v", qid, userData, unix.Errno(-res))
				os.Exit(1)
			}
			c.onRing.Add(1)
			c.answer(e, scratch, argBuf)
			r.prepCmd(int(c.dev.Fd()), userData, cmdCommitAndFetch, as[entInOut](e.header[hdrEntInOut:]).CommitID, nil)
		}) {
		}
	}
}

// answer serves the request in e and leaves its reply in e.
func (c *conn) answer(e *ringEntry, scratch, argBuf []byte) {
	h := *as[fuse.InHeader](e.header[hdrInOut:])
	ent := as[entInOut](e.header[hdrEntInOut:])
	payload := e.payload[:ent.PayloadSz]
	opIn := int(h.Length) - inHeaderSize - int(ent.PayloadSz)
	if opIn < 0 || opIn > hdrEntInOut-hdrOpIn {
		log.Fatalf("opcode %d: in-header length %d with %d payload bytes", h.Opcode, h.Length, ent.PayloadSz)
	}
	arg := payload
	if opIn > 0 {
		n := copy(argBuf, e.header[hdrOpIn:hdrOpIn+opIn])
		arg = argBuf[:n+copy(argBuf[n:], payload)]
	}
	status, size, _ := c.tree.handle(&h, arg, scratch)
	if status != 0 {
		size = 0
	}
	copy(e.payload, scratch[:size])
	*as[fuse.OutHeader](e.header[hdrInOut:]) = fuse.OutHeader{Length: uint32(outHeaderSize + size), Status: status, Unique: h.Unique}
	ent.PayloadSz = uint32(size)
}

func newRing(qid uint16, depth uint32) (*ring, error) {
	var p uringParams
	p.Flags = setupSQE128
	fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(depth), uintptr(unsafe.Pointer(&p)), 0)
	if errno != 0 {
		return nil, fmt.Errorf("io_uring_setup: %w", errno)
	}
	if p.Features&featSingleMmap == 0 {
		return nil, fmt.Errorf("io_uring without IORING_FEAT_SINGLE_MMAP")
	}
	r := &ring{fd: int(fd), qid: qid}
	ringSize := max(int(p.SqOff.Array)+int(p.SqEntries)*4, int(p.CqOff.Cqes)+int(p.CqEntries)*cqeSize)
	mem, err := unix.Mmap(r.fd, offSQRing, ringSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return nil, fmt.Errorf("mmap rings: %w", err)
	}
	r.sqes, err = unix.Mmap(r.fd, offSQEs, int(p.SqEntries)*sqeSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return nil, fmt.Errorf("mmap SQEs: %w", err)
	}
	u32 := func(off uint32) *uint32 { return (*uint32)(unsafe.Pointer(&mem[off])) }
	r.sqHead, r.sqTail, r.sqMask = u32(p.SqOff.Head), u32(p.SqOff.Tail), u32(p.SqOff.RingMask)
	r.sqArray = unsafe.Slice(u32(p.SqOff.Array), p.SqEntries)
	r.cqHead, r.cqTail, r.cqMask = u32(p.CqOff.Head), u32(p.CqOff.Tail), u32(p.CqOff.RingMask)
	r.cqes = mem[p.CqOff.Cqes : int(p.CqOff.Cqes)+int(p.CqEntries)*cqeSize]
	return r, nil
}

func (r *ring) registerAll(devFd, depth int) error {
	for i := range depth {
		header, err := unix.Mmap(-1, 0, 4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_POPULATE)
		if err != nil {
			return err
		}
		payload, err := unix.Mmap(-1, 0, payloadBytes, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_POPULATE)
		if err != nil {
			return err
		}
		e := &ringEntry{header: header, payload: payload}
		e.iov[0] = unix.Iovec{Base: &header[0], Len: hdrSize}
		e.iov[1] = unix.Iovec{Base: &payload[0], Len: uint64(len(payload))}
		r.entries = append(r.entries, e)
		r.prepCmd(devFd, uint64(i), cmdRegister, 0, e)
	}
	return nil
}

// prepCmd writes a FUSE uring command SQE; e is given for REGISTER only.
func (r *ring) prepCmd(devFd int, userData uint64, cmd uint32, commitID uint64, e *ringEntry) {
	tail := atomic.LoadUint32(r.sqTail) + r.pending
	idx := tail & *r.sqMask
	sqe := r.sqes[idx*sqeSize : (idx+1)*sqeSize]
	clear(sqe)
	sqe[0] = opURingCmd
	*(*int32)(unsafe.Pointer(&sqe[4])) = int32(devFd)
	*(*uint32)(unsafe.Pointer(&sqe[8])) = cmd
	if e != nil {
		*(*uint64)(unsafe.Pointer(&sqe[16])) = uint64(uintptr(unsafe.Pointer(&e.iov[0])))
		*(*uint32)(unsafe.Pointer(&sqe[24])) = 2
	}
	*(*uint64)(unsafe.Pointer(&sqe[32])) = userData
	// struct fuse_uring_cmd_req at the SQE's cmd area: flags, commit_id, qid.
	*(*uint64)(unsafe.Pointer(&sqe[56])) = commitID
	*(*uint16)(unsafe.Pointer(&sqe[64])) = r.qid
	r.sqArray[idx] = idx
	r.pending++
}

// submit publishes the pending SQEs and enters the kernel, waiting for at
// least minComplete completions.
func (r *ring) submit(minComplete uint32) error {
	n := r.pending
	atomic.StoreUint32(r.sqTail, atomic.LoadUint32(r.sqTail)+n)
	r.pending = 0
	for {
		var flags uintptr
		if minComplete > 0 {
			flags = enterGetEvents
		}
		_, _, errno := unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(n), uintptr(minComplete), flags, 0, 0)
		if errno == unix.EINTR {
			n = 0
			continue
		}
		if errno != 0 {
			return fmt.Errorf("io_uring_enter: %w", errno)
		}
		return nil
	}
}

// nextCQE hands the oldest completion to fn; false when there is none.
func (r *ring) nextCQE(fn func(userData uint64, res int32)) bool {
	head := atomic.LoadUint32(r.cqHead)
	if head == atomic.LoadUint32(r.cqTail) {
		return false
	}
	cqe := r.cqes[(head&*r.cqMask)*cqeSize:]
	userData := *(*uint64)(unsafe.Pointer(&cqe[0]))
	res := *(*int32)(unsafe.Pointer(&cqe[8]))
	atomic.StoreUint32(r.cqHead, head+1)
	fn(userData, res)
	return true
}
