package integration

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// plainBinary is storhfs built without the race detector, whose shadow
// memory would swamp any measurement of the mount's own memory. Built once,
// beside storhfsBin (TestMain removes that folder).
var plainBinary = sync.OnceValues(func() (string, error) {
	bin := filepath.Join(filepath.Dir(storhfsBin), "storhfs-plain")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/storhfs/storhfs/cmd/storhfs").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("build storhfs without -race: %v\n%s", err, out)
	}
	return bin, nil
})

func startPlainMount(t *testing.T, root string, flags ...string) *mount {
	t.Helper()
	bin, err := plainBinary()
	if err != nil {
		t.Fatal(err)
	}
	return startMountBin(t, bin, root, flags...)
}

// memStatus reads a kB field (VmRSS, VmHWM) of /proc/PID/status in bytes.
func memStatus(t *testing.T, pid int, field string) int64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != field {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if err != nil {
			t.Fatalf("%s of pid %d: %q: %v", field, pid, value, err)
		}
		return kb << 10
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

const mib = 1 << 20

// largeRecord is a record written as head, units repeated, tail.
type largeRecord struct {
	id               string
	head, unit, tail string
	units            int
}

// blobRecord is {"id":ID,"data":{"blob":"<size bytes of fill>"}}.
func blobRecord(id string, fill byte, size int) largeRecord {
	return largeRecord{id: id, head: `{"id":"` + id + `","data":{"blob":"`, unit: string(fill), units: size, tail: `"}}`}
}

// valuesRecord is {"id":ID,"data":{"a":[0,0,...]}} with n+1 elements.
func valuesRecord(id string, n int) largeRecord {
	return largeRecord{id: id, head: `{"id":"` + id + `","data":{"a":[0`, unit: ",0", units: n, tail: `]}}`}
}

func (r largeRecord) length() int64 {
	return int64(len(r.head) + len(r.unit)*r.units + len(r.tail))
}

// write writes the record to path in 1 MiB pieces; the failing step is
// "write" or "close" (the commit), with its error.
func (r largeRecord) write(path string) (step string, err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return "open", err
	}
	perPiece := mib / len(r.unit)
	piece := []byte(strings.Repeat(r.unit, perPiece))
	_, err = f.WriteString(r.head)
	for left := r.units; err == nil && left > 0; left -= perPiece {
		_, err = f.Write(piece[:min(left, perPiece)*len(r.unit)])
	}
	if err == nil {
		_, err = f.WriteString(r.tail)
	}
	closeErr := f.Close()
	if err != nil {
		return "write", err
	}
	if closeErr != nil {
		return "close", closeErr
	}
	return "", nil
}

// matches reports whether the file at path holds exactly the record.
func (r largeRecord) matches(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || fi.Size() != r.length() {
		return false, err
	}
	got, err := io.ReadAll(bufio.NewReader(f))
	if err != nil {
		return false, err
	}
	return string(got) == r.head+strings.Repeat(r.unit, r.units)+r.tail, nil
}

// writeInParallel writes every record through the mount at once and
// returns each one's failing step and error.
func writeInParallel(m *mount, collection string, recs []largeRecord) (steps []string, errs []error) {
	steps, errs = make([]string, len(recs)), make([]error, len(recs))
	var wg sync.WaitGroup
	for i, r := range recs {
		wg.Go(func() { steps[i], errs[i] = r.write(m.path(collection, r.id+".jsonc")) })
	}
	wg.Wait()
	return steps, errs
}

func newLargeRecords(t *testing.T, n, size int) []largeRecord {
	recs := make([]largeRecord, n)
	for i := range recs {
		recs[i] = blobRecord(newID(t), byte('a'+i), size)
	}
	return recs
}

// assertNoTempFiles checks that a collection's buckets hold record files
// only (no temp file of a failed commit left behind).
func assertNoTempFiles(t *testing.T, root, collection string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, collection, "data", "*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !strings.HasSuffix(f, ".jsonc") {
			t.Errorf("temp file %s left in a bucket", f)
		}
	}
}

// waitIdleRSS polls (for up to 10 s) until the mount's RSS is back within
// 64 MiB of idle.
func waitIdleRSS(t *testing.T, pid int, idle int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		rss := memStatus(t, pid, "VmRSS")
		if rss <= idle+64*mib {
			t.Logf("RSS back to %d MiB (idle %d MiB)", rss>>20, idle>>20)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("RSS still %d MiB 10 s after the writers closed; idle was %d MiB", rss>>20, idle>>20)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// idleRSS is the mount's RSS once it has served a listing of collection.
func idleRSS(t *testing.T, m *mount, collection string) int64 {
	t.Helper()
	runOK(t, "", "ls", m.path(collection))
	return memStatus(t, m.cmd.Process.Pid, "VmRSS")
}

// Issue 17, defect 4: large writes keep the mount's memory within
// --max-buffer-mb plus 64 MiB (the bound asserted, on VmHWM, the peak
// resident set over the process's life), and the memory is given back
// once the writers close. Without the spill files, the commit charge and
// the runtime memory limit, 8 parallel 60 MiB writes peaked at 1109 MiB
// here and 675 MiB were still held 10 s after the writers closed.
func TestMemoryStaysWithinBudget(t *testing.T) {
	requireFuse(t, "ls")
	root := demoRoot(t, 10)

	t.Run("default budget, 8 parallel 60 MiB records", func(t *testing.T) {
		m := startPlainMount(t, root)
		pid := m.cmd.Process.Pid
		idle := idleRSS(t, m, "pages")
		recs := newLargeRecords(t, 8, 60*mib)
		steps, errs := writeInParallel(m, "pages", recs)
		for i, r := range recs {
			if errs[i] != nil {
				t.Errorf("record %d: %s: %v", i, steps[i], errs[i])
				continue
			}
			if ok, err := r.matches(storedPath(root, "pages", r.id)); !ok {
				t.Errorf("record %d stored differently (%v)", i, err)
			}
		}
		peak := memStatus(t, pid, "VmHWM")
		t.Logf("peak RSS %d MiB (idle %d MiB)", peak>>20, idle>>20)
		if limit := int64(512+64) * mib; peak > limit {
			t.Errorf("peak RSS %d MiB, above the 512 MiB budget + 64 MiB", peak>>20)
		}
		waitIdleRSS(t, pid, idle)
	})

	t.Run("64 MiB budget", func(t *testing.T) {
		m := startPlainMount(t, root, "--max-buffer-mb", "64")
		pid := m.cmd.Process.Pid
		idle := idleRSS(t, m, "notes")
		// A 60 MiB record needs over 360 MiB to commit: refused while written.
		big := newLargeRecords(t, 8, 60*mib)
		steps, errs := writeInParallel(m, "notes", big)
		for i, r := range big {
			if steps[i] != "write" || !errors.Is(errs[i], syscall.ENOSPC) {
				t.Errorf("60 MiB record %d with a 64 MiB budget: %s: %v, want ENOSPC at write", i, steps[i], errs[i])
			}
			if _, err := os.Lstat(storedPath(root, "notes", r.id)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("60 MiB record %d refused, but its file is there (%v)", i, err)
			}
		}
		// 8 MiB records need 48 MiB each: their commits take turns.
		small := newLargeRecords(t, 8, 8*mib)
		steps, errs = writeInParallel(m, "notes", small)
		for i, r := range small {
			if errs[i] != nil {
				t.Errorf("8 MiB record %d: %s: %v", i, steps[i], errs[i])
				continue
			}
			if ok, err := r.matches(storedPath(root, "notes", r.id)); !ok {
				t.Errorf("8 MiB record %d stored differently (%v)", i, err)
			}
		}
		peak := memStatus(t, pid, "VmHWM")
		t.Logf("peak RSS %d MiB (idle %d MiB)", peak>>20, idle>>20)
		if limit := int64(64+64) * mib; peak > limit {
			t.Errorf("peak RSS %d MiB, above the 64 MiB budget + 64 MiB", peak>>20)
		}
		waitIdleRSS(t, pid, idle)
		assertNoTempFiles(t, root, "notes")
	})

	// A record of many small values parses to far more than its size
	// (about 300 bytes per value): its commit is charged by its values.
	t.Run("default budget, records of many values", func(t *testing.T) {
		m := startPlainMount(t, root)
		pid := m.cmd.Process.Pid
		idle := idleRSS(t, m, "pages")
		fits := valuesRecord(newID(t), 512<<10)  // 1 MiB, about 160 MiB to commit
		tooMany := valuesRecord(newID(t), 8<<20) // 16 MiB, about 2.6 GB to commit
		if step, err := fits.write(m.path("pages", fits.id+".jsonc")); err != nil {
			t.Errorf("1 MiB record of 512 Ki values: %s: %v", step, err)
		} else if ok, err := fits.matches(storedPath(root, "pages", fits.id)); !ok {
			t.Errorf("1 MiB record of 512 Ki values stored differently (%v)", err)
		}
		if step, err := tooMany.write(m.path("pages", tooMany.id+".jsonc")); step != "close" || !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("16 MiB record of 8 Mi values: %s: %v, want ENOSPC at close", step, err)
		}
		if _, err := os.Lstat(storedPath(root, "pages", tooMany.id)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("refused record of 8 Mi values is stored (%v)", err)
		}
		peak := memStatus(t, pid, "VmHWM")
		t.Logf("peak RSS %d MiB (idle %d MiB)", peak>>20, idle>>20)
		if limit := int64(512+64) * mib; peak > limit {
			t.Errorf("peak RSS %d MiB, above the 512 MiB budget + 64 MiB", peak>>20)
		}
		waitIdleRSS(t, pid, idle)
		assertNoTempFiles(t, root, "pages")
	})

	// Many files small enough for memory, as much as the whole budget: half
	// stays in memory, the rest spills; removing them gives the memory
	// back although no single release is large.
	t.Run("default budget, 512 scratch files of 1 MiB", func(t *testing.T) {
		m := startPlainMount(t, root)
		pid := m.cmd.Process.Pid
		idle := idleRSS(t, m, "pages")
		piece := bytes.Repeat([]byte("s"), mib)
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for w := range errs {
			wg.Go(func() {
				for i := range 64 {
					if err := os.WriteFile(m.path("pages", fmt.Sprintf("w%d-%d.tmp", w, i)), piece, 0o644); err != nil {
						errs[w] = err
						return
					}
				}
			})
		}
		wg.Wait()
		for w, err := range errs {
			if err != nil {
				t.Fatalf("writer %d: %v", w, err)
			}
		}
		held := memStatus(t, pid, "VmRSS")
		for w := range errs {
			for i := range 64 {
				if err := os.Remove(m.path("pages", fmt.Sprintf("w%d-%d.tmp", w, i))); err != nil {
					t.Fatal(err)
				}
			}
		}
		peak := memStatus(t, pid, "VmHWM")
		t.Logf("peak RSS %d MiB, %d MiB with the files (idle %d MiB)", peak>>20, held>>20, idle>>20)
		if limit := int64(512+64) * mib; peak > limit {
			t.Errorf("peak RSS %d MiB, above the 512 MiB budget + 64 MiB", peak>>20)
		}
		waitIdleRSS(t, pid, idle)
	})
	verify(t, root, "pages")
	verify(t, root, "notes")
}
