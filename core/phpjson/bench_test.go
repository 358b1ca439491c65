package phpjson

import (
	"encoding/json"
	"testing"
)

// benchRecord is a realistic ~300-byte canonical record file.
var benchRecord = []byte(`{"id":"018fad90-6eb8-7f76-a1cd-590d296e74f6","data":{"title":"Quarterly report","slug":"quarterly-report-2024","status":"published","views":1842,"score":4.75,"author":{"name":"Ada Lovelace","email":"ada@example.com"},"tags":["finance","q3","internal"],"draft":false,"updated":1719859200123,"note":null}}` + "\n")

func BenchmarkDecodeRecord(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchRecord)))
	for b.Loop() {
		if _, err := Decode(benchRecord); err != nil {
			b.Fatal(err)
		}
	}
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
	for b.Loop() {
		if _, err := DecodeJSONCObject(benchRecord); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStdlibUnmarshalRecord is encoding/json on the same record, for
// calibrating the figures above on a loaded machine.
func BenchmarkStdlibUnmarshalRecord(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var v any
		if err := json.Unmarshal(benchRecord, &v); err != nil {
			b.Fatal(err)
		}
	}
}

// smallRecord is the shape of the DocStore benchmark records (~170 bytes).
var smallRecord = []byte(`{"id":"018f2a3b-4c5d-7e6f-8a9b-0c1d2e3f4a5b","data":{"title":"Record number 12345","kind":"k5","tag":"t45","n":12345,"body":"A short body of text for the benchmark."}}` + "\n")

func BenchmarkDecodeSmallRecord(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(smallRecord)))
	for b.Loop() {
		if _, err := DecodeJSONCObject(smallRecord); err != nil {
			b.Fatal(err)
		}
	}
}
