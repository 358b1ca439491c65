package seglog

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/internal/scratch"
)

// Benchmarks on the PHP reference workload: 20k records, 16 KiB segments.
// Per-record metrics are reported as us/record.

const (
	benchRecords  = 20000
	benchSegBytes = 16 << 10
	benchBaseMs   = int64(1716384278000)
)

// Benchmark directories live under one scratch directory that is removed
// when the test binary exits, not after each run as b.TempDir's are. On
// ext4 without a journal (this machine's disk) creating a file passes over
// inodes freed in the last 60 s (360 s while their inode table block is
// dirty), so removing one run's thousands of files right before the next
// run made that run's file creations several times slower: a cost of the
// benchmark's cleanup, not of the operation measured.
var benchScratch scratch.Dir

func TestMain(m *testing.M) {
	code := m.Run()
	benchScratch.Remove()
	os.Exit(code)
}

// benchDir returns a new empty directory under the scratch directory.
func benchDir(b *testing.B) string { return benchScratch.New(b) }

func benchID(i int) string {
	ts := benchBaseMs + int64(i)
	return fmt.Sprintf("%08x-%04x-7000-8000-%012x", ts>>16, ts&0xffff, i)
}

func benchData(i int) *phpjson.Array {
	a := phpjson.NewArray(4)
	a.SetString("type", "page.saved")
	a.SetString("n", int64(i))
	a.SetString("ratio", float64(i)/2)
	a.SetString("path", "/a/b/c")
	return a
}

func benchRows() []phpjson.Value {
	rows := make([]phpjson.Value, benchRecords)
	for i := range rows {
		r := phpjson.NewArray(2)
		r.SetString("id", benchID(i))
		r.SetString("data", benchData(i))
		rows[i] = r
	}
	return rows
}

func benchOpen(b *testing.B, root string) *Log {
	b.Helper()
	l, err := Open(root, "events", Options{MaxSegmentBytes: benchSegBytes})
	if err != nil {
		b.Fatal(err)
	}
	return l
}

// filledLog returns a root holding benchRecords records.
func filledLog(b *testing.B) string {
	b.Helper()
	root := benchDir(b)
	l := benchOpen(b, root)
	if _, err := l.AppendMany(benchRows()); err != nil {
		b.Fatal(err)
	}
	l.Close()
	return root
}

func perRecord(b *testing.B, records int) {
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*records), "us/record")
}

// cpuTime is the process's user+system CPU time. On a shared, overloaded
// machine wall-clock figures of CPU-bound work are inflated by waiting for
// a core; CPU time per op is the stabler figure.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// userTime is the process's user CPU time: cpuTime without the kernel's
// share (system calls, such as the file operations of a roll).
func userTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano())
}

// reportCPU reports CPU time since start per op and per record.
func reportCPU(b *testing.B, start time.Duration, records int) {
	d := cpuTime() - start
	b.ReportMetric(float64(d.Microseconds())/float64(b.N), "cpu-us/op")
	if records > 1 {
		b.ReportMetric(float64(d.Nanoseconds())/1000/float64(b.N*records), "cpu-us/record")
	}
}

func BenchmarkPutFsync(b *testing.B) {
	l := benchOpen(b, benchDir(b))
	defer l.Close()
	d := benchData(1)
	runtime.GC()
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		if _, err := l.Put(d, benchID(i)); err != nil {
			b.Fatal(err)
		}
	}
	perRecord(b, 1)
	reportCPU(b, cpu, 1)
}

func BenchmarkAppendMany(b *testing.B) {
	rows := benchRows()
	var cpu, user time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		l := benchOpen(b, benchDir(b))
		runtime.GC()
		b.StartTimer()
		c, u := cpuTime(), userTime()
		if _, err := l.AppendMany(rows); err != nil {
			b.Fatal(err)
		}
		cpu, user = cpu+cpuTime()-c, user+userTime()-u
		b.StopTimer()
		l.Close()
		b.StartTimer()
	}
	perRecord(b, benchRecords)
	b.ReportMetric(float64(cpu.Nanoseconds())/1000/float64(b.N*benchRecords), "cpu-us/record")
	b.ReportMetric(float64(user.Nanoseconds())/1000/float64(b.N*benchRecords), "user-us/record")
}

func BenchmarkCompact(b *testing.B) {
	var elapsed, cpu, user time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		l := benchOpen(b, filledLog(b))
		runtime.GC()
		b.StartTimer()
		start, c, u := time.Now(), cpuTime(), userTime()
		if err := l.Compact(); err != nil {
			b.Fatal(err)
		}
		elapsed += time.Since(start)
		cpu, user = cpu+cpuTime()-c, user+userTime()-u
		b.StopTimer()
		l.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(elapsed.Microseconds())/float64(b.N*benchRecords), "us/record")
	b.ReportMetric(float64(cpu.Nanoseconds())/1000/float64(b.N*benchRecords), "cpu-us/record")
	b.ReportMetric(float64(user.Nanoseconds())/1000/float64(b.N*benchRecords), "user-us/record")
}

func BenchmarkCursorRead100(b *testing.B) {
	l := benchOpen(b, filledLog(b))
	defer l.Close()
	var q StreamQuery
	q.After(benchID(benchRecords / 2))
	q.Limit(100)
	runtime.GC()
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		n := 0
		if err := l.Stream(q, func(Record) error { n++; return nil }); err != nil || n != 100 {
			b.Fatal(n, err)
		}
	}
	reportCPU(b, cpu, 1)
}

func BenchmarkTimeRange100(b *testing.B) {
	l := benchOpen(b, filledLog(b))
	defer l.Close()
	from, until := benchBaseMs+benchRecords/2, benchBaseMs+benchRecords/2+99
	var q StreamQuery
	q.TimeRangeMs(&from, &until)
	runtime.GC()
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		n := 0
		if err := l.Stream(q, func(Record) error { n++; return nil }); err != nil || n != 100 {
			b.Fatal(n, err)
		}
	}
	reportCPU(b, cpu, 1)
}

func BenchmarkReopenTornTail(b *testing.B) {
	root := filledLog(b)
	dir := root + "/events"
	m, _ := readManifest(dir)
	active := dir + "/segments/" + m.activeFile()
	runtime.GC()
	b.ResetTimer()
	var cpu time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		f, _ := os.OpenFile(active, os.O_WRONLY|os.O_APPEND, 0)
		f.WriteString("120\t0000")
		f.Close()
		b.StartTimer()
		c := cpuTime()
		l := benchOpen(b, root)
		cpu += cpuTime() - c
		b.StopTimer()
		if l.state.live != benchRecords {
			b.Fatal(l.state.live)
		}
		l.Close()
		b.StartTimer()
	}
	perRecord(b, benchRecords)
	b.ReportMetric(float64(cpu.Nanoseconds())/1000/float64(b.N*benchRecords), "cpu-us/record")
}

func BenchmarkReaderSnapshotRecords(b *testing.B) {
	root := filledLog(b)
	r := NewReader(root + "/events")
	runtime.GC()
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		s, err := r.Snapshot()
		if err != nil {
			b.Fatal(err)
		}
		if n, err := recordsSize(s); err != nil || n == 0 {
			b.Fatal(err)
		}
	}
	perRecord(b, benchRecords)
	reportCPU(b, cpu, benchRecords)
}

// BenchmarkReaderRecords is a snapshot and one pass over its records
// view: what reading a mounted log's records.ndjson costs the engine.
func BenchmarkReaderRecords(b *testing.B) {
	root := filledLog(b)
	r := NewReader(root + "/events")
	runtime.GC()
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		s, err := r.Snapshot()
		if err != nil {
			b.Fatal(err)
		}
		for _, err := range records(s) {
			if err != nil {
				b.Fatal(err)
			}
		}
		s.Close()
	}
	perRecord(b, benchRecords)
	reportCPU(b, cpu, benchRecords)
}

// BenchmarkReaderSnapshot is the replay alone (read-only, no manifest
// rewrite): the CPU part of a reopen.
func BenchmarkReaderSnapshot(b *testing.B) {
	root := filledLog(b)
	r := NewReader(root + "/events")
	runtime.GC()
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		if _, err := r.Snapshot(); err != nil {
			b.Fatal(err)
		}
	}
	perRecord(b, benchRecords)
	reportCPU(b, cpu, benchRecords)
}

// BenchmarkSnapshotAfterAppend is what a mount pays for a view refresh
// after one append to a log of 30k records in 16 KiB segments: a full
// replay (Snapshot) against an extension of the previous snapshot
// (SnapshotAfter). "overwritten" has one record put twice, so the state
// is a full index, which an extension copies.
func BenchmarkSnapshotAfterAppend(b *testing.B) {
	const records = 30000
	for _, c := range []struct {
		name                string
		extend, overwritten bool
	}{{"full", false, false}, {"extend", true, false}, {"full-overwritten", false, true}, {"extend-overwritten", true, true}} {
		b.Run(c.name, func(b *testing.B) {
			root := benchDir(b)
			l := benchOpen(b, root)
			defer l.Close()
			rows := make([]phpjson.Value, records)
			for i := range rows {
				r := phpjson.NewArray(2)
				r.SetString("id", benchID(i))
				r.SetString("data", benchData(i))
				rows[i] = r
			}
			if _, err := l.AppendMany(rows); err != nil {
				b.Fatal(err)
			}
			next := records
			if c.overwritten {
				if _, err := l.Put(benchData(0), benchID(0)); err != nil {
					b.Fatal(err)
				}
			}
			r := NewReader(root + "/events")
			prev, err := r.Snapshot()
			if err != nil {
				b.Fatal(err)
			}
			if _, ok := prev.KnownRecordsSize(); ok == c.overwritten {
				b.Fatalf("sequential state: %v", ok)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				if _, err := l.Put(benchData(next), benchID(next)); err != nil {
					b.Fatal(err)
				}
				next++
				b.StartTimer()
				var s *Snapshot
				if c.extend {
					s, err = r.SnapshotAfter(prev)
				} else {
					s, err = r.Snapshot()
				}
				if err != nil {
					b.Fatal(err)
				}
				prev.Close()
				prev = s
			}
			b.StopTimer()
			if got := prev.v.state.live; got != next {
				b.Fatalf("%d live records, want %d", got, next)
			}
			b.ReportMetric(float64(len(prev.Segments())), "segments")
			prev.Close()
		})
	}
}
