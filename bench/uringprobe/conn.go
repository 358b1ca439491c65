package main

import (
	"errors"
	"fmt"
	"log"
	"os"
	"sync/atomic"
	"unsafe"

	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

const capOverIOUring = 1 << 41

type conn struct {
	dev       *os.File
	tree      *tree
	wantUring bool
	onDev     atomic.Int64 // requests that came through read(2)
	onRing    atomic.Int64 // requests that came through io_uring
	restore   func()
}

// exit reports where the requests came from and ends the process (the
// mount is gone when a transport sees ENODEV or ENOTCONN).
func (c *conn) exit(code int) {
	fmt.Fprintf(os.Stderr, "requests: %d by read(2), %d by io_uring\n", c.onDev.Load(), c.onRing.Load())
	if c.restore != nil {
		c.restore()
	}
	os.Exit(code)
}

// init answers FUSE_INIT on /dev/fuse. With -transport uring it asks for
// FUSE_OVER_IO_URING, which the kernel grants only if enable_uring is set.
func (c *conn) init() error {
	buf := make([]byte, maxWrite+4096)
	n, err := c.dev.Read(buf)
	if err != nil {
		return fmt.Errorf("read INIT: %w", err)
	}
	h := as[fuse.InHeader](buf[:n])
	if h.Opcode != opInit {
		return fmt.Errorf("first request is opcode %d, not INIT", h.Opcode)
	}
	in := as[fuse.InitIn](buf[:n])
	kernel := uint64(in.Flags) | uint64(in.Flags2)<<32
	want := uint64(fuse.CAP_ASYNC_READ | fuse.CAP_BIG_WRITES | fuse.CAP_PARALLEL_DIROPS | fuse.CAP_INIT_EXT)
	if c.wantUring {
		if kernel&capOverIOUring == 0 {
			return errors.New("the kernel does not offer FUSE_OVER_IO_URING")
		}
		want |= capOverIOUring
	}
	flags := want & kernel
	out := fuse.InitOut{
		Major: 7, Minor: min(in.Minor, 42), MaxReadAhead: in.MaxReadAhead,
		Flags: uint32(flags), Flags2: uint32(flags >> 32),
		MaxBackground: 64, CongestionThreshold: 48, MaxWrite: maxWrite, TimeGran: 1,
	}
	reply := make([]byte, outHeaderSize+int(unsafe.Sizeof(out)))
	n = put(reply[outHeaderSize:], out)
	*as[fuse.OutHeader](reply) = fuse.OutHeader{Length: uint32(len(reply)), Unique: h.Unique}
	if _, err := c.dev.Write(reply); err != nil {
		return fmt.Errorf("reply INIT: %w", err)
	}
	return nil
}

// serveDev is the classic transport: two readers, each reading a request
// and writing its reply. With io_uring in use only FORGETs and INTERRUPTs
// arrive here.
func (c *conn) serveDev() {
	for range 2 {
		go c.readLoop()
	}
	select {}
}

func (c *conn) readLoop() {
	buf := make([]byte, maxWrite+4096)
	reply := make([]byte, maxWrite+4096)
	for {
		n, err := unix.Read(int(c.dev.Fd()), buf)
		if err == unix.EINTR || err == unix.ENOENT || err == unix.EAGAIN {
			continue
		}
		if err != nil {
			if err != unix.ENODEV {
				log.Printf("read /dev/fuse: %v", err)
			}
			c.exit(0)
		}
		c.onDev.Add(1)
		h := as[fuse.InHeader](buf[:n])
		status, size, noReply := c.tree.handle(h, buf[inHeaderSize:n], reply[outHeaderSize:])
		if noReply {
			continue
		}
		if status != 0 {
			size = 0
		}
		*as[fuse.OutHeader](reply) = fuse.OutHeader{Length: uint32(outHeaderSize + size), Status: status, Unique: h.Unique}
		if _, err := unix.Write(int(c.dev.Fd()), reply[:outHeaderSize+size]); err != nil && err != unix.ENOENT {
			log.Printf("write reply to opcode %d: %v", h.Opcode, err)
		}
	}
}
