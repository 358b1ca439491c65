package fuseuring

import (
	"errors"
	"fmt"
	"log"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// FUSE's io_uring commands (enum fuse_uring_cmd) and the header buffer of
// a ring entry (struct fuse_uring_req_header, include/uapi/linux/fuse.h,
// protocol 7.42):
//
//	[0, 128)   in_out: the request's fuse_in_header; the reply's fuse_out_header
//	[128, 256) op_in: the opcode's own argument struct (fuse_open_in, ...)
//	[256, 288) fuse_uring_ent_in_out: flags, commit_id, payload_sz
//
// The payload buffer holds the rest of the request (a name, WRITE data)
// and, on the way back, everything of the reply after its out-header.
const (
	cmdRegister       = 1
	cmdCommitAndFetch = 2

	hdrOpIn       = 128
	hdrEntInOut   = 256
	hdrCommitID   = hdrEntInOut + 8
	hdrPayloadSz  = hdrEntInOut + 16
	hdrSize       = 288
	inHeaderSize  = 40
	outHeaderSize = 16

	// A queue gains a thread whenever fewer than spareThreads of its
	// threads wait for a request, so a handler that waits (for a lock, for
	// a notification the kernel answers only once another request of the
	// same queue is served) leaves the queue readers. Spare threads are
	// registered before they are needed: the kernel hands a request that
	// found no free entry only to an entry that commits, not to one
	// registered later. Threads never retire: the kernel has no way to
	// take an entry back, and it hands requests to every entry it has.
	spareThreads       = 2
	maxThreadsPerQueue = 128
	// maxThreads bounds them all, below the Go runtime's 10000.
	maxThreads = 4096
)

// Handler answers one FUSE request: in is the request as the kernel lays
// it out on /dev/fuse (in-header, argument struct, payload), split over
// buffers; the reply (out-header first) is written across out, and its
// length returned. *fuse.ProtocolServer is one.
type Handler interface {
	HandleRequest(in, out [][]byte) (int, fuse.Status)
}

// Transport serves a FUSE connection's requests over io_uring: one queue
// per possible CPU (the kernel sends a request to the queue of the CPU its
// caller runs on), each served by threads pinned to that CPU, so the
// caller and the thread answering it share a CPU and neither waits for the
// other to be scheduled elsewhere. FORGET, INTERRUPT and notifications
// still travel over /dev/fuse.
type Transport struct {
	dev         int // a duplicate of the connection's /dev/fuse descriptor
	handler     Handler
	log         *log.Logger
	payloadSize int
	onFail      func(error)
	running     atomic.Int32 // threads, all queues
	threads     sync.WaitGroup
	done        chan struct{}
}

type queue struct {
	t       *Transport
	qid     uint16
	idle    atomic.Int32 // threads waiting for a request
	threads atomic.Int32
}

// Start registers threads on every CPU queue of the connection behind
// devFd, whose FUSE_INIT reply carries FUSE_OVER_IO_URING and sets
// maxWrite, once that reply is sent (go-fuse's fuse.NewServer sends it
// before it returns; the kernel refuses registrations before). From that
// reply on the kernel holds every request until each queue has
// an entry, and then sends them over io_uring: if Start fails, the caller
// must abort the connection, or its users wait forever.
//
// onFail is called when a thread stops while the connection lives (its
// CPU's requests may then wait for a reader that never comes); the mount
// aborts the connection then.
func Start(devFd int, h Handler, maxWrite int, logger *log.Logger, onFail func(error)) (*Transport, error) {
	cpus, err := possibleCPUs()
	if err != nil {
		return nil, err
	}
	dev, err := unix.FcntlInt(uintptr(devFd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("dup /dev/fuse: %w", err)
	}
	t := &Transport{dev: dev, handler: h, log: logger, onFail: onFail, done: make(chan struct{}),
		// The kernel wants room for the largest WRITE or READ (max_write,
		// max_pages), and at least FUSE_MIN_READ_BUFFER (8 KiB).
		payloadSize: max(roundUp(maxWrite, os.Getpagesize()), 8192)}
	var errs []error
	for qid := range cpus {
		q := &queue{t: t, qid: uint16(qid)}
		for range spareThreads {
			if err := q.grow(); err != nil {
				errs = append(errs, err)
			}
		}
	}
	go func() {
		t.threads.Wait()
		unix.Close(t.dev)
		close(t.done)
	}()
	return t, errors.Join(errs...)
}

// Done is closed once every thread has ended: the connection is gone.
func (t *Transport) Done() <-chan struct{} { return t.done }

// grow starts one more thread on q and returns once its entry is
// registered (or failed to be).
func (q *queue) grow() error {
	if q.threads.Add(1) > maxThreadsPerQueue || q.t.running.Add(1) > maxThreads {
		q.threads.Add(-1)
		q.t.running.Add(-1)
		return nil
	}
	registered := make(chan error, 1)
	q.t.threads.Add(1)
	go func() {
		defer q.t.threads.Done()
		defer q.threads.Add(-1)
		defer q.t.running.Add(-1)
		q.serve(registered)
	}()
	return <-registered
}

// serve is one thread of q: it registers an entry, then answers the
// requests the kernel puts in it until the connection ends. The
// goroutine keeps its thread (pinned to q's CPU) and ends with it.
func (q *queue) serve(registered chan<- error) {
	runtime.LockOSThread()
	var cpu unix.CPUSet
	cpu.Set(int(q.qid))
	unix.SchedSetaffinity(0, &cpu) // best effort: a cpuset may exclude it
	r, err := newRing(1)
	if err != nil {
		registered <- fmt.Errorf("queue %d: %w", q.qid, err)
		return
	}
	e, err := newEntry(q.t.payloadSize)
	if err != nil {
		r.close()
		registered <- fmt.Errorf("queue %d: %w", q.qid, err)
		return
	}
	// The entry's buffers are unmapped only once the kernel has ended its
	// command (a completion with an error): it keeps their addresses, and
	// writes a request into them whenever a command is in flight.
	inFlight := false
	defer func() {
		r.close()
		if !inFlight {
			e.free()
		}
	}()
	cmd := e.register(q)
	if err := q.register(r, cmd); err != nil {
		registered <- fmt.Errorf("queue %d: register: %w", q.qid, err)
		return
	}
	inFlight = true
	q.idle.Add(1)
	registered <- nil
	for {
		if err := r.wait(); err != nil {
			q.t.fail(fmt.Errorf("queue %d: %w", q.qid, err))
			return
		}
		_, res, _ := r.reap()
		switch {
		case res == -int32(unix.EINTR) || res == -int32(unix.EAGAIN):
			cmd(r) // not taken: send it again
			continue
		case res == -int32(unix.ENOTCONN) || res == -int32(unix.ENODEV) || res == -int32(unix.ECONNABORTED):
			inFlight = false
			return // unmounted or aborted
		case res < 0:
			inFlight = false
			q.t.fail(fmt.Errorf("queue %d: %w", q.qid, unix.Errno(-res)))
			return
		}
		if q.idle.Add(-1) < spareThreads {
			if err := q.grow(); err != nil {
				q.t.log.Printf("io_uring queue %d: another thread: %v", q.qid, err)
			}
		}
		q.t.answer(e)
		q.idle.Add(1)
		cmd = e.commitAndFetch(q)
		cmd(r)
	}
}

// register puts the registration cmd in r. A registration refused at
// once (a bad queue, io_uring off) fails here; one refused later, through
// the kernel's worker threads, ends serve.
func (q *queue) register(r *ring, cmd command) error {
	cmd(r)
	if err := r.submit(); err != nil {
		return err
	}
	if res, done := r.peek(); done && res < 0 {
		r.reap()
		return unix.Errno(-res)
	}
	return nil
}

// fail reports a thread that stopped while the connection lives. Its
// queue has one reader less; Config.OnFail decides what the mount does.
func (t *Transport) fail(err error) {
	t.log.Printf("io_uring %v", err)
	if t.onFail != nil {
		t.onFail(err)
	}
}

// answer runs the request in e through the handler and leaves the reply
// in e. A request with a payload gets its reply's payload in a separate
// buffer first, so the handler never writes where it still reads.
func (t *Transport) answer(e *entry) {
	h := (*fuse.InHeader)(unsafe.Pointer(&e.header[0]))
	unique := h.Unique
	payloadIn := int(*(*uint32)(unsafe.Pointer(&e.header[hdrPayloadSz])))
	opIn := int(h.Length) - inHeaderSize - payloadIn
	if opIn < 0 || opIn > hdrEntInOut-hdrOpIn || payloadIn > len(e.payload) {
		t.log.Printf("io_uring: opcode %d: %d bytes with a %d-byte payload do not fit its entry", h.Opcode, h.Length, payloadIn)
		t.reply(e, unique, -int32(unix.EIO), 0)
		return
	}
	in := [][]byte{e.header[:inHeaderSize], e.header[hdrOpIn : hdrOpIn+opIn], e.payload[:payloadIn]}
	out := [][]byte{e.header[:outHeaderSize], e.payload}
	if payloadIn > 0 {
		out[1] = e.scratch()
	}
	n, status := t.handler.HandleRequest(in, out)
	switch {
	case status != fuse.OK || n < outHeaderSize:
		t.reply(e, unique, -int32(unix.EIO), 0)
	case payloadIn > 0:
		copy(e.payload, out[1][:n-outHeaderSize])
		put32(e.header, hdrPayloadSz, uint32(n-outHeaderSize))
	default:
		put32(e.header, hdrPayloadSz, uint32(n-outHeaderSize))
	}
}

// reply writes a reply of n payload bytes with status (0 or -errno).
func (t *Transport) reply(e *entry, unique uint64, status int32, n int) {
	*(*fuse.OutHeader)(unsafe.Pointer(&e.header[0])) = fuse.OutHeader{Length: uint32(outHeaderSize + n), Status: status, Unique: unique}
	put32(e.header, hdrPayloadSz, uint32(n))
}

func possibleCPUs() (int, error) {
	b, err := os.ReadFile("/sys/devices/system/cpu/possible")
	if err != nil {
		return 0, fmt.Errorf("possible CPUs: %w", err)
	}
	return countCPUs(strings.TrimSpace(string(b)))
}

// countCPUs counts the CPUs of a kernel CPU list ("0-3,8-11"): the kernel
// makes as many queues (num_possible_cpus), numbered from 0.
func countCPUs(list string) (int, error) {
	n := 0
	for _, part := range strings.Split(list, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		first, err := strconv.Atoi(lo)
		last := first
		if err == nil && isRange {
			last, err = strconv.Atoi(hi)
		}
		if err != nil || last < first {
			return 0, fmt.Errorf("CPU list %q: bad part %q", list, part)
		}
		n += last - first + 1
	}
	return n, nil
}

func roundUp(n, to int) int { return (n + to - 1) / to * to }
