package integration

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/storhfs/storhfs/core/uuidv7"
)

// The kill tests' mount writers run as subprocesses of this test binary
// (so the writer is never the process serving the mount): with
// killWriterEnv set to "FOLDER|NAME", init runs writeThroughMount instead
// of the tests.
const killWriterEnv = "STORHFS_KILL_WRITER"

func init() {
	if spec := os.Getenv(killWriterEnv); spec != "" {
		folder, name, _ := strings.Cut(spec, "|")
		os.Exit(writeThroughMount(folder, name, os.Stdout))
	}
}

// recordBody is the exact content a mount writer gives version v of id.
func recordBody(id, writer string, v int) string {
	return fmt.Sprintf("{\"id\":%q,\"data\":{\"writer\":%q,\"v\":%d,\"pad\":%q}}\n", id, writer, v, strings.Repeat("m", padLen(v)))
}

// padLen varies the record size so that a torn record cannot pass as whole.
func padLen(v int) int { return 100 + v*37%900 }

// writeThroughMount creates, rewrites and (through scratch names renamed
// onto record names) replaces records in folder until an operation fails.
// Before each attempt it prints "TRY id v", after the call that makes it
// durable returned 0 (close, or rename for a scratch file) "ACK id v".
func writeThroughMount(folder, writer string, out io.Writer) int {
	gen := uuidv7.NewGenerator(nil, nil)
	rnd := rand.New(rand.NewSource(int64(len(writer)) + int64(os.Getpid())))
	var own []string
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "%s: %v\n", writer, err)
		return 2
	}
	for v := 0; ; v++ {
		op := rnd.Intn(3)
		id := ""
		if op != 0 && len(own) > 0 {
			id = own[rnd.Intn(len(own))]
		} else {
			var err error
			if id, err = gen.New(); err != nil {
				return fail(err)
			}
			own = append(own, id)
		}
		fmt.Fprintf(out, "TRY %s %s %d\n", writer, id, v)
		target := filepath.Join(folder, id+".jsonc")
		body := []byte(recordBody(id, writer, v))
		var err error
		switch op {
		case 2: // an editor's replace: scratch file, then rename onto the record
			scratch := filepath.Join(folder, fmt.Sprintf("%s-%d.tmp", writer, v))
			if err = os.WriteFile(scratch, body, 0o644); err == nil {
				err = os.Rename(scratch, target)
			}
		case 1: // rewrite in place
			err = writeClose(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, body)
		default: // create
			err = writeClose(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, body)
		}
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(out, "ACK %s %s %d\n", writer, id, v)
	}
}

// writeClose writes body to path and reports close's error too: close is
// where the mount commits.
func writeClose(path string, flags int, body []byte) error {
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return err
	}
	_, werr := f.Write(body)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// ledger collects what the writers tried and what they were told was
// stored, by record id (each id has one writer, whose versions only grow).
type ledger struct {
	mu      sync.Mutex
	records map[string]*ledgerEntry
	acked   int
}

type ledgerEntry struct {
	writer   string
	acked    int // last acknowledged version; -1: none
	maxTried int
}

func newLedger() *ledger { return &ledger{records: map[string]*ledgerEntry{}} }

// follow reads a writer's TRY/ACK lines until EOF.
func (l *ledger) follow(r io.Reader) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 4 {
			continue
		}
		v, err := strconv.Atoi(f[3])
		if err != nil {
			continue
		}
		l.note(f[0], f[1], f[2], v)
	}
}

func (l *ledger) note(kind, writer, id string, v int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.records[id]
	if e == nil {
		e = &ledgerEntry{writer: writer, acked: -1, maxTried: -1}
		l.records[id] = e
	}
	if v > e.maxTried {
		e.maxTried = v
	}
	if kind == "ACK" {
		e.acked = v
		l.acked++
	}
}

var recordFileName = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonc$`)

// check compares the collection on disk with the ledger: every
// acknowledged write is there (the acknowledged version or a later one its
// writer tried), and no record is torn (each is exactly, or for PHP
// decodes to, a version its writer wrote). It returns the problems found.
func (l *ledger) check(root, collection string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var problems []string
	stored := map[string]int{}
	files, _ := filepath.Glob(filepath.Join(root, collection, "data", "*", "*"))
	for _, file := range files {
		name := filepath.Base(file)
		if !recordFileName.MatchString(name) {
			continue
		}
		id := strings.TrimSuffix(name, ".jsonc")
		v, err := checkRecordFile(file, id)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		stored[id] = v
	}
	for id, e := range l.records {
		v, ok := stored[id]
		switch {
		case e.acked < 0:
		case !ok:
			problems = append(problems, fmt.Sprintf("%s: acknowledged version %d of %s is missing", e.writer, e.acked, id))
		case v < e.acked || v > e.maxTried && !strings.HasPrefix(e.writer, "php"):
			// (PHP writers run on while the disk is checked: the ledger
			// may not have read their latest tries yet.)
			problems = append(problems, fmt.Sprintf("%s: %s holds version %d, acknowledged %d, tried up to %d", e.writer, id, v, e.acked, e.maxTried))
		}
	}
	return problems
}

// checkRecordFile returns the version a record file holds, or why it is
// torn or foreign.
func checkRecordFile(file, id string) (int, error) {
	body, err := os.ReadFile(file)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", file, err)
	}
	var rec struct {
		ID   string `json:"id"`
		Data struct {
			Writer string `json:"writer"`
			V      int    `json:"v"`
			Pad    string `json:"pad"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &rec); err != nil {
		return 0, fmt.Errorf("%s: torn or invalid record (%v): %.80q", file, err, body)
	}
	data := rec.Data
	switch {
	case rec.ID != id:
		return 0, fmt.Errorf("%s: id %q inside", file, rec.ID)
	case strings.HasPrefix(data.Writer, "php"):
		if len(data.Pad) != padLen(data.V) {
			return 0, fmt.Errorf("%s: PHP record v%d with a pad of %d bytes", file, data.V, len(data.Pad))
		}
	case data.Writer == "setup":
	default:
		if string(body) != recordBody(id, data.Writer, data.V) {
			return 0, fmt.Errorf("%s: not the bytes %s wrote for v%d: %.80q", file, data.Writer, data.V, body)
		}
	}
	return data.V, nil
}
