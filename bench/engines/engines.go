package main

// An engine is one core package measured against one PHP script. Every row
// pairs a row of the script's output with the Go benchmark that does the
// same operation on the same data set; the scripts mirror the benchmarks'
// data, parameters and iteration counts (their comments name each one).
type engine struct {
	name   string  // as in the PHP output's "engine"
	pkg    string  // the Go package holding the benchmarks
	script string  // the PHP script, relative to the module root
	groups []group // one test binary run each per round
	rows   []row
	// fsyncRows are measured interleaved with PHP (interleave.go), not by
	// the passes: their Go benchmarks are not in groups.
	fsyncRows []fsyncRow
}

// A group is the benchmarks that share one -benchtime.
type group struct {
	pattern   string // -test.bench
	benchtime string // -test.benchtime
}

type row struct {
	label string // the table's row
	php   string // the script's "row"
	bench string // the Go benchmark's name without "Benchmark"
	unit  string // the figure's unit (PHP's "unit"; the Go metric it is read from)
}

var engines = []engine{
	{
		name: "docstore", pkg: "./core/docstore", script: "bench/php/docstore.php",
		groups: []group{
			{"^BenchmarkGetCold$", "5000x"},
			{"^Benchmark(Stream|ExportJSONL|Reindex)$", "3x"},
			{"^Benchmark(QueryEqualityIndexed|CountIndexed)$", "2000x"},
		},
		rows: []row{
			{"cold get", "get", "GetCold", "us/record"},
			{"stream, per record", "stream", "Stream", "us/record"},
			{"indexed equality query, limit 100", "query", "QueryEqualityIndexed", "us/op"},
			{"indexed count (2000 of 20k)", "count", "CountIndexed", "us/op"},
			{"index rebuild from the records (2 eq + 1 range), per record", "reindex", "Reindex", "us/record"},
			{"export JSONL, per record", "export", "ExportJSONL", "us/record"},
		},
		fsyncRows: []fsyncRow{
			{"put (fsync)", "put", "us/record", openDocPut},
			{"put raw (PHP: put with the caller's id)", "putraw", "us/record", openDocPutRaw},
		},
	},
	{
		name: "seglog", pkg: "./core/seglog", script: "bench/php/seglog.php",
		groups: []group{
			{"^Benchmark(AppendMany|Compact|ReopenTornTail)$", "3x"},
			{"^Benchmark(CursorRead100|TimeRange100)$", "500x"},
		},
		rows: []row{
			{"bulk append, per record", "append", "AppendMany", "us/record"},
			{"compact, per record", "compact", "Compact", "us/record"},
			{"cursor read 100", "cursor", "CursorRead100", "us/op"},
			{"time-range read 100", "timerange", "TimeRange100", "us/op"},
			{"reopen with torn tail, per record", "reopen", "ReopenTornTail", "us/record"},
		},
		fsyncRows: []fsyncRow{{"put (fsync)", "put", "us/record", openLogPut}},
	},
	{
		name: "queue", pkg: "./core/queue", script: "bench/php/queue.php",
		groups: []group{
			{"^Benchmark(EnqueueMany20k|ClaimMany20k|CompleteMany20k)$", "3x"},
		},
		rows: []row{
			{"enqueueMany, per job", "enqueueMany", "EnqueueMany20k", "us/job"},
			{"claimMany, per job", "claimMany", "ClaimMany20k", "us/job"},
			{"completeMany, per job", "completeMany", "CompleteMany20k", "us/job"},
		},
		fsyncRows: []fsyncRow{
			{"enqueue (fsync)", "enqueue", "us/op", openQueueEnqueue},
			{"claim (fsync)", "claim", "us/op", openQueueClaim},
			{"complete (fsync)", "complete", "us/op", openQueueComplete},
		},
	},
}
