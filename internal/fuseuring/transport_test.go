package fuseuring

import (
	"bytes"
	"errors"
	"log"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// The kernel's opcodes used below (include/uapi/linux/fuse.h).
const (
	opLookup  = 1
	opGetattr = 3
	opWrite   = 16
)

// put lays a request into e as the kernel does: the in-header, the
// opcode's argument struct in op_in, the rest in the payload.
func putRequest(e *entry, opcode uint32, opIn, payload []byte) {
	h := (*fuse.InHeader)(unsafe.Pointer(&e.header[0]))
	*h = fuse.InHeader{Length: uint32(inHeaderSize + len(opIn) + len(payload)), Opcode: opcode, Unique: 42, NodeId: 1}
	copy(e.header[hdrOpIn:], opIn)
	copy(e.payload, payload)
	put32(e.header, hdrPayloadSz, uint32(len(payload)))
}

func replyOf(e *entry) (fuse.OutHeader, []byte) {
	n := *(*uint32)(unsafe.Pointer(&e.header[hdrPayloadSz]))
	return *(*fuse.OutHeader)(unsafe.Pointer(&e.header[0])), e.payload[:n]
}

func newTestEntry(t *testing.T) *entry {
	t.Helper()
	e, err := newEntry(1 << 17)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.free)
	return e
}

// testFS answers LOOKUP of "a" and GETATTR of the root, and records WRITEs.
type testFS struct {
	fuse.RawFileSystem
	written []byte
}

func (f *testFS) Lookup(cancel <-chan struct{}, h *fuse.InHeader, name string, out *fuse.EntryOut) fuse.Status {
	if name != "a" {
		return fuse.ENOENT
	}
	out.NodeId, out.Attr.Ino, out.Attr.Size, out.Attr.Mode = 2, 2, 7, syscall.S_IFREG|0o644
	return fuse.OK
}

func (f *testFS) GetAttr(cancel <-chan struct{}, in *fuse.GetAttrIn, out *fuse.AttrOut) fuse.Status {
	out.Attr.Ino, out.Attr.Mode = in.NodeId, syscall.S_IFDIR|0o755
	return fuse.OK
}

func (f *testFS) Write(cancel <-chan struct{}, in *fuse.WriteIn, data []byte) (uint32, fuse.Status) {
	f.written = append([]byte(nil), data...)
	return uint32(len(data)), fuse.OK
}

func newTestTransport(t *testing.T) (*Transport, *testFS, *bytes.Buffer) {
	fs := &testFS{RawFileSystem: fuse.NewDefaultRawFileSystem()}
	var logs bytes.Buffer
	return &Transport{handler: fuse.NewProtocolServer(fs, &fuse.MountOptions{}), log: log.New(&logs, "", 0)}, fs, &logs
}

// The glue between ring entries and go-fuse's protocol server, with the
// requests laid out as Linux 6.18 lays them (fs/fuse/dev_uring.c): each
// opcode's reply must come back as the kernel reads it.
func TestAnswerLaysRepliesOutForTheKernel(t *testing.T) {
	tr, fs, _ := newTestTransport(t)
	e := newTestEntry(t)

	// GETATTR: argument struct in op_in, no payload.
	putRequest(e, opGetattr, make([]byte, 16), nil)
	tr.answer(e)
	oh, payload := replyOf(e)
	if oh.Status != 0 || oh.Unique != 42 || len(payload) != int(unsafe.Sizeof(fuse.AttrOut{})) {
		t.Fatalf("GETATTR reply: %+v with %d payload bytes", oh, len(payload))
	}
	if attr := (*fuse.AttrOut)(unsafe.Pointer(&payload[0])); attr.Ino != 1 || attr.Mode != syscall.S_IFDIR|0o755 {
		t.Fatalf("GETATTR attributes: %+v", attr.Attr)
	}

	// LOOKUP: no argument struct, the name in the payload; the reply's
	// payload is written where the name was read from.
	putRequest(e, opLookup, nil, []byte("a\x00"))
	tr.answer(e)
	oh, payload = replyOf(e)
	if oh.Status != 0 || len(payload) != int(unsafe.Sizeof(fuse.EntryOut{})) {
		t.Fatalf("LOOKUP reply: %+v with %d payload bytes", oh, len(payload))
	}
	if entry := (*fuse.EntryOut)(unsafe.Pointer(&payload[0])); entry.NodeId != 2 || entry.Size != 7 {
		t.Fatalf("LOOKUP entry: %+v", entry)
	}
	putRequest(e, opLookup, nil, []byte("b\x00"))
	tr.answer(e)
	if oh, payload = replyOf(e); oh.Status != -int32(syscall.ENOENT) || len(payload) != 0 {
		t.Fatalf("LOOKUP of a missing name: %+v with %d payload bytes", oh, len(payload))
	}

	// WRITE: fuse_write_in in op_in, the data in the payload.
	writeIn := make([]byte, unsafe.Sizeof(fuse.WriteIn{})-unsafe.Sizeof(fuse.InHeader{}))
	data := bytes.Repeat([]byte("x"), 5000)
	*(*uint32)(unsafe.Pointer(&writeIn[16])) = uint32(len(data)) // fuse_write_in.size
	putRequest(e, opWrite, writeIn, data)
	tr.answer(e)
	oh, payload = replyOf(e)
	if oh.Status != 0 || len(payload) != 8 || *(*uint32)(unsafe.Pointer(&payload[0])) != uint32(len(data)) {
		t.Fatalf("WRITE reply: %+v, payload %v", oh, payload)
	}
	if !bytes.Equal(fs.written, data) {
		t.Fatalf("WRITE handed %d bytes to the file system, want %d", len(fs.written), len(data))
	}
}

// A request whose lengths do not add up gets EIO, not a handler call
// with a wrong view of its arguments.
func TestAnswerRefusesInconsistentLengths(t *testing.T) {
	tr, _, logs := newTestTransport(t)
	e := newTestEntry(t)
	for _, c := range []struct {
		name    string
		length  uint32
		payload uint32
	}{
		{"length below the header", 10, 0},
		{"payload longer than the request", inHeaderSize + 4, 100},
		{"argument struct beyond op_in", inHeaderSize + 200, 0},
		{"payload beyond its buffer", inHeaderSize + 1<<20, 1 << 20},
	} {
		putRequest(e, opGetattr, nil, nil)
		h := (*fuse.InHeader)(unsafe.Pointer(&e.header[0]))
		h.Length = c.length
		put32(e.header, hdrPayloadSz, c.payload)
		tr.answer(e)
		if oh, payload := replyOf(e); oh.Status != -int32(unix.EIO) || oh.Unique != 42 || len(payload) != 0 {
			t.Errorf("%s: reply %+v with %d payload bytes, want EIO", c.name, oh, len(payload))
		}
	}
	if !strings.Contains(logs.String(), "do not fit") {
		t.Errorf("log: %q", logs.String())
	}
}

// The ring itself, with no-op commands: submit, wait, reap.
func TestRingRoundTrip(t *testing.T) {
	r, err := newRing(1)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
		t.Skipf("io_uring is not available here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	for i := range uint64(5) {
		sqe := r.nextSQE()
		sqe[sqeOpcode] = 0 // IORING_OP_NOP
		put64(sqe, sqeUserData, 100+i)
		r.push()
		if err := r.wait(); err != nil {
			t.Fatal(err)
		}
		userData, res, ok := r.reap()
		if !ok || res != 0 || userData != 100+i {
			t.Fatalf("completion %d: user data %d, result %d, ok %v", i, userData, res, ok)
		}
		if _, _, ok := r.reap(); ok {
			t.Fatalf("a second completion after command %d", i)
		}
	}
}

func TestPossibleCPUs(t *testing.T) {
	n, err := possibleCPUs()
	if err != nil || n < 1 {
		t.Fatalf("possibleCPUs: %d, %v", n, err)
	}
	for list, want := range map[string]int{"0": 1, "0-1": 2, "0-3,8-11": 8, "0,2,4": 3} {
		if n, err := countCPUs(list); err != nil || n != want {
			t.Errorf("countCPUs(%q) = %d, %v; want %d", list, n, err, want)
		}
	}
	for _, bad := range []string{"", "a", "3-1", "0-", "-1"} {
		if n, err := countCPUs(bad); err == nil {
			t.Errorf("countCPUs(%q) = %d, want an error", bad, n)
		}
	}
}

func TestParseFdConnection(t *testing.T) {
	fdinfo := "pos:\t0\nflags:\t0100002\nmnt_id:\t24\nino:\t90\nfuse_connection:\t40\n"
	if conn, ok := parseFdConnection(fdinfo); !ok || conn != 40 {
		t.Errorf("parseFdConnection: %d, %v; want 40", conn, ok)
	}
	for _, text := range []string{"pos:\t0\nflags:\t02\n", "fuse_connection:\tx\n", ""} {
		if conn, ok := parseFdConnection(text); ok {
			t.Errorf("parseFdConnection(%q) = %d, want none", text, conn)
		}
	}
}
