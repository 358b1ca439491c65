package docstore

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/storhfs/storhfs/core/docindex"
	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/uuidv7"
	"github.com/storhfs/storhfs/internal/scratch"
)

// Benchmarks run on a 20k-record collection of small records, built once
// per fixture name and process (written directly, canonical bytes, no
// fsync) and removed by TestMain.
//
//	go test -run '^$' -bench . -benchtime 2000x ./core/docstore/
const benchRecords = 20000

var (
	fixturesMu sync.Mutex
	fixtures   = map[string]*benchFixture{}
	fixtureDir scratch.Dir
)

type benchFixture struct {
	root string
	ids  []string
}

func TestMain(m *testing.M) {
	code := m.Run()
	fixtureDir.Remove()
	os.Exit(code)
}

func benchData(i int) *phpjson.Array {
	return obj("title", fmt.Sprintf("Record number %d", i), "kind", fmt.Sprintf("k%d", i%10),
		"tag", fmt.Sprintf("t%d", i%50), "n", i, "body", "A short body of text for the benchmark.")
}

// fixture returns the collection root/"pages" of name, building it once.
func fixture(b *testing.B, name string, defs []docindex.Definition) *benchFixture {
	b.Helper()
	fixturesMu.Lock()
	defer fixturesMu.Unlock()
	if f, ok := fixtures[name]; ok {
		return f
	}
	root := fixtureDir.Path(b) + "/" + name
	gen := uuidv7.NewGenerator(nil, nil)
	base := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	f := &benchFixture{root: root, ids: make([]string, benchRecords)}
	dir := CollectionDir(root, "pages")
	for i := range f.ids {
		id, err := gen.NewAt(base + int64(i))
		if err != nil {
			b.Fatal(err)
		}
		f.ids[i] = id
		content, err := encodeRecord(id, benchData(i))
		if err != nil {
			b.Fatal(err)
		}
		path := CollectionDir(root, "pages") + "/data/" + id[24:26] + "/" + id + ".jsonc"
		if err := os.MkdirAll(dir+"/data/"+id[24:26], 0o777); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(path, content, 0o666); err != nil {
			b.Fatal(err)
		}
	}
	if len(defs) > 0 {
		s, err := Open(root, "pages", Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.SyncIndexes(defs, true); err != nil {
			b.Fatal(err)
		}
		_ = s.Close()
	}
	unix.Sync() // finish writeback so it does not disturb the measurement
	fixtures[name] = f
	return f
}

func benchOpen(b *testing.B, f *benchFixture) *Store {
	b.Helper()
	s, err := Open(f.root, "pages", Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	return s
}

func perRecord(b *testing.B, records int) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(records)/1000, "us/record")
}

// cpuTime is this process's user+system CPU time (all threads), so that a
// benchmark on a shared, loaded machine also reports the work it did.
func cpuTime() time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// startCPU resets the timer and returns a func reporting the CPU time per
// op ("cpu-us/op") and, when records > 0, per record ("cpu-us/record").
func startCPU(b *testing.B) func(records int) {
	b.Helper()
	b.ResetTimer()
	start := cpuTime()
	return func(records int) {
		b.StopTimer()
		cpu := float64((cpuTime() - start).Nanoseconds()) / 1000
		b.ReportMetric(cpu/float64(b.N), "cpu-us/op")
		if records > 0 {
			b.ReportMetric(cpu/float64(records), "cpu-us/record")
		}
	}
}

func BenchmarkPut(b *testing.B) {
	s := benchOpen(b, fixture(b, "put", nil))
	gen := uuidv7.NewGenerator(nil, nil)
	done := startCPU(b)
	for i := 0; i < b.N; i++ {
		id, _ := gen.New()
		if _, err := s.Put(benchData(i), id); err != nil {
			b.Fatal(err)
		}
	}
	done(b.N)
	perRecord(b, b.N)
}

func BenchmarkPutRaw(b *testing.B) {
	s := benchOpen(b, fixture(b, "putraw", nil))
	gen := uuidv7.NewGenerator(nil, nil)
	done := startCPU(b)
	for i := 0; i < b.N; i++ {
		id, _ := gen.New()
		content, _ := encodeRecord(id, benchData(i))
		if err := s.PutRaw(id, content); err != nil {
			b.Fatal(err)
		}
	}
	done(b.N)
	perRecord(b, b.N)
}

func BenchmarkGetCold(b *testing.B) {
	f := fixture(b, "read", nil)
	s := benchOpen(b, f) // a fresh Store: nothing cached, every get reads and decodes
	done := startCPU(b)
	for i := 0; i < b.N; i++ {
		r, err := s.Get(f.ids[(i*7919)%len(f.ids)])
		if err != nil || r == nil {
			b.Fatal(err)
		}
	}
	done(b.N)
	perRecord(b, b.N)
}

func BenchmarkStream(b *testing.B) {
	s := benchOpen(b, fixture(b, "read", nil))
	done := startCPU(b)
	n := 0
	for i := 0; i < b.N; i++ {
		if err := s.Stream(RecordQuery{}, func(Record) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
	}
	done(n)
	perRecord(b, n)
}

var benchIndexDefs = []docindex.Definition{{Field: "kind"}, {Field: "tag"}, {Field: "n", Range: true}}

func BenchmarkQueryEqualityIndexed(b *testing.B) {
	s := benchOpen(b, fixture(b, "indexed", benchIndexDefs))
	done := startCPU(b)
	for i := 0; i < b.N; i++ {
		recs, err := s.Query().Where("kind", "eq", fmt.Sprintf("k%d", i%10)).Limit(100).Get()
		if err != nil || len(recs) != 100 {
			b.Fatalf("%d records, %v", len(recs), err)
		}
	}
	done(0)
}

func BenchmarkCountIndexed(b *testing.B) {
	s := benchOpen(b, fixture(b, "indexed", benchIndexDefs))
	done := startCPU(b)
	for i := 0; i < b.N; i++ {
		n, err := s.Query().Where("kind", "eq", fmt.Sprintf("k%d", i%10)).Count()
		if err != nil || n != benchRecords/10 {
			b.Fatalf("count %d, %v", n, err)
		}
	}
	done(0)
}

func BenchmarkReindex(b *testing.B) {
	s := benchOpen(b, fixture(b, "reindex", benchIndexDefs))
	done := startCPU(b)
	for i := 0; i < b.N; i++ {
		if _, err := s.Reindex(); err != nil {
			b.Fatal(err)
		}
	}
	done(b.N * benchRecords)
	perRecord(b, b.N*benchRecords)
}

func BenchmarkExportJSONL(b *testing.B) {
	f := fixture(b, "read", nil)
	s := benchOpen(b, f)
	out := b.TempDir() + "/export.jsonl"
	done := startCPU(b)
	for i := 0; i < b.N; i++ {
		if n, err := s.ExportJSONL(out); err != nil || n != benchRecords {
			b.Fatalf("%d, %v", n, err)
		}
	}
	done(b.N * benchRecords)
	perRecord(b, b.N*benchRecords)
}

// BenchmarkReadFloor is the syscall floor of a cold get on this machine:
// open, one read and close of a record file, nothing decoded.
func BenchmarkReadFloor(b *testing.B) {
	f := fixture(b, "read", nil)
	s := benchOpen(b, f)
	done := startCPU(b)
	for i := 0; i < b.N; i++ {
		if err := withRecordFileStat(s.RecordPath(f.ids[(i*7919)%len(f.ids)]), nil, func([]byte) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
	done(b.N)
	perRecord(b, b.N)
}
