package phpjson

import (
	"encoding/json"
	"syscall"
	"testing"
	"time"
)

// processCPU returns the CPU time (user+sys) this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds the process CPU per op since start (GC workers included),
// steadier than wall time on a shared machine.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
}

// benchRecord is a realistic ~300-byte canonical record file.
var benchRecord = []byte(`{"id":"018fad90-6eb8-7f76-a1cd-590d296e74f6","data":{"title":"Quarterly report","slug":"quarterly-report-2024","status":"published","views":1842,"score":4.75,"author":{"name":"Ada Lovelace","email":"ada@example.com"},"tags":["finance","q3","internal"],"draft":false,"updated":1719859200123,"note":null}}` + "\n")

func BenchmarkDecodeRecord(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchRecord)))
	start := processCPU()
	for b.Loop() {
		if _, err := Decode(benchRecord); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

func BenchmarkEncodeRecord(b *testing.B) {
	v, err := Decode(benchRecord)
	if err != nil {
		b.Fatal(err)
	}
	data, _ := v.(*Array).Lookup("data")
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	b.SetBytes(int64(len(benchRecord)))
	for b.Loop() {
		out := append(buf[:0], `{"id":"018fad90-6eb8-7f76-a1cd-590d296e74f6","data":`...)
		out, err = AppendEncode(out, data)
		if err != nil {
			b.Fatal(err)
		}
		_ = append(out, '}', '\n')
	}
}

func BenchmarkDecodeJSONCRecord(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchRecord)))
	start := processCPU()
	for b.Loop() {
		if _, err := DecodeJSONCObject(benchRecord); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

// BenchmarkStdlibUnmarshalRecord is encoding/json on the same record, for
// calibrating the figures above on a loaded machine.
func BenchmarkStdlibUnmarshalRecord(b *testing.B) {
	b.ReportAllocs()
	start := processCPU()
	for b.Loop() {
		var v any
		if err := json.Unmarshal(benchRecord, &v); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

// smallRecord is the shape of the DocStore benchmark records (~170 bytes).
var smallRecord = []byte(`{"id":"018f2a3b-4c5d-7e6f-8a9b-0c1d2e3f4a5b","data":{"title":"Record number 12345","kind":"k5","tag":"t45","n":12345,"body":"A short body of text for the benchmark."}}` + "\n")

func BenchmarkDecodeSmallRecord(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(smallRecord)))
	start := processCPU()
	for b.Loop() {
		if _, err := DecodeJSONCObject(smallRecord); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

// logData is the data of a SegmentedLog benchmark line (core/seglog
// bench_test.go), decoded from the line by DecodeDepth.
var logData = []byte(`{"type":"page.saved","n":12345,"ratio":6172.5,"path":"/a/b/c"}`)

func BenchmarkDecodeLogData(b *testing.B) { benchDecodeData(b, logData) }

// benchDecodeData decodes data as the engines decode a record's data:
// DecodeDepth one level below the default, the record being the first.
func benchDecodeData(b *testing.B, data []byte) {
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	start := processCPU()
	for b.Loop() {
		if _, err := DecodeDepth(data, DefaultDepth-1); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, start)
}

// storeData is the data of a DocStore benchmark record (core/docstore
// bench_test.go), decoded from the record by DecodeDepth.
var storeData = []byte(`{"title":"Record number 12345","kind":"k5","tag":"t45","n":12345,"body":"A short body of text for the benchmark."}`)

func BenchmarkDecodeStoreData(b *testing.B) { benchDecodeData(b, storeData) }
