package queue

import (
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// Benchmarks on 20k jobs. PHP on this machine class (fsync per event):
// enqueue/claim/complete ~210 us each; enqueueMany 2.0 us/job, claimMany
// 0.97 us/job, completeMany 0.84 us/job.

const benchJobs = 20000

func benchPayloads(n int) []Job {
	jobs := make([]Job, n)
	for i := range jobs {
		jobs[i].Payload = obj("task", "render", "page", int64(i), "url", fmt.Sprintf("https://example.test/p/%d", i))
	}
	return jobs
}

func benchQueue(b *testing.B, pending int) (*Queue, []string) {
	b.Helper()
	q, err := OpenDir(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { q.Close() })
	ids, err := q.EnqueueMany(benchPayloads(pending))
	if err != nil {
		b.Fatal(err)
	}
	return q, ids
}

// reportSplit reports the wall time per job, and the part of it not spent
// waiting in fsync (the CPU-bound share; on a loaded machine this includes
// run-queue waits, so cpu-us/job, the process CPU time, is reported too).
// Streamed batches (batchwrite.go) fsync on the writer goroutine while the
// caller still works, so for them the split overstates the fsync's share.
func reportSplit(b *testing.B, elapsed, syncWait time.Duration, jobs int) {
	b.ReportMetric(float64(elapsed.Nanoseconds())/1e3/float64(jobs), "us/job")
	b.ReportMetric(float64((elapsed-syncWait).Nanoseconds())/1e3/float64(jobs), "us/job-excl-fsync")
}

// cpuTime is the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, cpu time.Duration, jobs int) {
	b.ReportMetric(float64(cpu.Nanoseconds())/1e3/float64(jobs), "cpu-us/job")
}

func BenchmarkEnqueue(b *testing.B) {
	q, _ := benchQueue(b, benchJobs)
	payload := obj("task", "render", "page", int64(1))
	q.syncWait = 0
	runtime.GC()
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		if _, err := q.Enqueue(payload, ""); err != nil {
			b.Fatal(err)
		}
	}
	reportSplit(b, b.Elapsed(), q.syncWait, b.N)
	reportCPU(b, cpuTime()-cpu, b.N)
}

func BenchmarkClaim(b *testing.B) {
	q, _ := benchQueue(b, max(benchJobs, b.N))
	q.syncWait = 0
	runtime.GC()
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		if rec, err := q.Claim(); err != nil || rec == nil {
			b.Fatal(rec, err)
		}
	}
	reportSplit(b, b.Elapsed(), q.syncWait, b.N)
	reportCPU(b, cpuTime()-cpu, b.N)
}

func BenchmarkComplete(b *testing.B) {
	q, _ := benchQueue(b, max(benchJobs, b.N))
	recs, err := q.ClaimMany(max(benchJobs, b.N))
	if err != nil {
		b.Fatal(err)
	}
	q.syncWait = 0
	runtime.GC()
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		if err := q.Complete(recs[i].ID, true); err != nil {
			b.Fatal(err)
		}
	}
	reportSplit(b, b.Elapsed(), q.syncWait, b.N)
	reportCPU(b, cpuTime()-cpu, b.N)
}

func BenchmarkEnqueueMany20k(b *testing.B) {
	jobs := benchPayloads(benchJobs)
	var elapsed, syncWait, cpu time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		q, err := OpenDir(b.TempDir(), Options{})
		if err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		b.StartTimer()
		start, cpuStart := time.Now(), cpuTime()
		if _, err := q.EnqueueMany(jobs); err != nil {
			b.Fatal(err)
		}
		elapsed += time.Since(start)
		cpu += cpuTime() - cpuStart
		syncWait += q.syncWait
		b.StopTimer()
		q.Close()
		b.StartTimer()
	}
	reportSplit(b, elapsed, syncWait, b.N*benchJobs)
	reportCPU(b, cpu, b.N*benchJobs)
}

func BenchmarkClaimMany20k(b *testing.B) {
	var elapsed, syncWait, cpu time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		q, _ := benchQueue(b, benchJobs)
		q.syncWait = 0
		runtime.GC()
		b.StartTimer()
		start, cpuStart := time.Now(), cpuTime()
		if recs, err := q.ClaimMany(benchJobs); err != nil || len(recs) != benchJobs {
			b.Fatal(len(recs), err)
		}
		elapsed += time.Since(start)
		cpu += cpuTime() - cpuStart
		syncWait += q.syncWait
	}
	reportSplit(b, elapsed, syncWait, b.N*benchJobs)
	reportCPU(b, cpu, b.N*benchJobs)
}

func BenchmarkCompleteMany20k(b *testing.B) {
	var elapsed, syncWait, cpu time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		q, ids := benchQueue(b, benchJobs)
		if _, err := q.ClaimMany(benchJobs); err != nil {
			b.Fatal(err)
		}
		q.syncWait = 0
		runtime.GC()
		b.StartTimer()
		start, cpuStart := time.Now(), cpuTime()
		if n, err := q.CompleteMany(ids, true); err != nil || n != benchJobs {
			b.Fatal(n, err)
		}
		elapsed += time.Since(start)
		cpu += cpuTime() - cpuStart
		syncWait += q.syncWait
	}
	reportSplit(b, elapsed, syncWait, b.N*benchJobs)
	reportCPU(b, cpu, b.N*benchJobs)
}

// BenchmarkOpen20k is the replay at open of a log of 20k enqueues, 20k
// claims and 20k completes.
func BenchmarkOpen20k(b *testing.B) {
	q, ids := benchQueue(b, benchJobs)
	q.ClaimMany(benchJobs)
	q.CompleteMany(ids, true)
	runtime.GC()
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		q2, err := OpenDir(q.Path(), Options{})
		if err != nil {
			b.Fatal(err)
		}
		q2.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e3/float64(b.N*3*benchJobs), "us/event")
	b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/1e3/float64(b.N*3*benchJobs), "cpu-us/event")
}

// snapshotLog20k is a queue of 20k jobs (all enqueued, half claimed, a
// quarter completed) plus one claim appended after snapshot prev was taken.
func snapshotLog20k(b *testing.B) (dir string, prev *Snapshot) {
	q, ids := benchQueue(b, benchJobs)
	if _, err := q.ClaimMany(benchJobs / 2); err != nil {
		b.Fatal(err)
	}
	if _, err := q.CompleteMany(ids[:benchJobs/4], true); err != nil {
		b.Fatal(err)
	}
	prev, err := ReadSnapshot(q.Path(), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { prev.Close() })
	if _, err := q.Claim(); err != nil {
		b.Fatal(err)
	}
	return q.Path(), prev
}

// BenchmarkSnapshot20k is the mount's refresh after one append to a 20k-job
// queue: a full replay against an extension of the previous snapshot; the
// "+stat" variants also size every view, as a stat of each view file does.
func BenchmarkSnapshot20k(b *testing.B) {
	dir, prev := snapshotLog20k(b)
	for _, bc := range []struct {
		name string
		prev *Snapshot
		stat bool
	}{{"full", nil, false}, {"extend", prev, false}, {"full+stat", nil, true}, {"extend+stat", prev, true}} {
		b.Run(bc.name, func(b *testing.B) {
			runtime.GC()
			for b.Loop() {
				s, err := ReadSnapshotAfter(bc.prev, dir, nil)
				if err != nil {
					b.Fatal(err)
				}
				for v := ViewPending; bc.stat && v < numViews; v++ {
					if _, err := s.ViewSize(v); err != nil {
						b.Fatal(err)
					}
				}
				s.Close()
			}
		})
	}
}
