<?php
// SegmentedLog engine benchmark on the PHP library, mirroring core/seglog's
// Go benchmarks (bench_test.go): 20k records, 16 KiB segments, the same ids,
// data, queries and iteration counts. Prints one JSON line per row:
// {"engine","row","us","unit"}. Usage:
//   php bench/php/seglog.php SCRATCH_DIR [RUNS]
require getenv('STORH_AUTOLOAD');

use Storh\RecordQuery;
use Storh\SegmentedLog;

$scratch = $argv[1] ?? sys_get_temp_dir();
$runs = (int) ($argv[2] ?? 3);
const RECORDS = 20000;
const SEG_BYTES = 16384;
const BASE_MS = 1716384278000;
const PUTS = 300;     // -benchtime 300x
const BULK = 3;       // -benchtime 3x
const READS = 500;    // -benchtime 500x

function bench_id(int $i): string {
    $ts = BASE_MS + $i;
    return sprintf('%08x-%04x-7000-8000-%012x', $ts >> 16, $ts & 0xffff, $i);
}

function bench_data(int $i): array {
    return ['type' => 'page.saved', 'n' => $i, 'ratio' => $i / 2.0, 'path' => '/a/b/c'];
}

function bench_rows(): array {
    $rows = [];
    for ($i = 0; $i < RECORDS; $i++) { $rows[] = ['id' => bench_id($i), 'data' => bench_data($i)]; }
    return $rows;
}

function fresh(string $scratch): string {
    $dir = $scratch . '/l-' . bin2hex(random_bytes(6));
    mkdir($dir, 0777, true);
    return $dir;
}

function open_log(string $root): SegmentedLog { return new SegmentedLog($root, 'events', SEG_BYTES); }

// filled_log returns a root holding RECORDS records.
function filled_log(string $scratch, array $rows): string {
    $root = fresh($scratch);
    $l = open_log($root);
    $l->appendMany($rows);
    unset($l);
    return $root;
}

function row(string $row, float $us, string $unit): void {
    echo json_encode(['engine' => 'seglog', 'row' => $row, 'us' => round($us, 3), 'unit' => $unit]), "\n";
}

function median(array $xs): float { sort($xs); return $xs[intdiv(count($xs), 2)]; }

function fail(string $msg): void { fwrite(STDERR, "seglog bench: $msg\n"); exit(1); }

function elapsed_us(int $start): float { return (hrtime(true) - $start) / 1e3; }

function count_stream(SegmentedLog $l, RecordQuery $q): int {
    $n = 0;
    foreach ($l->stream($q) as $rec) { $n++; }
    return $n;
}

$rows = bench_rows();
$t = [];
for ($r = 0; $r < $runs; $r++) {
    // BenchmarkPutFsync: one fsync per put, fresh log.
    $l = open_log(fresh($scratch));
    $d = bench_data(1);
    $st = hrtime(true);
    for ($i = 0; $i < PUTS; $i++) { $l->put($d, bench_id($i)); }
    $t['put'][] = elapsed_us($st) / PUTS;
    unset($l);

    // BenchmarkAppendMany: 20k rows into a fresh log, per record.
    $us = 0.0;
    for ($i = 0; $i < BULK; $i++) {
        $l = open_log(fresh($scratch));
        $st = hrtime(true);
        $l->appendMany($rows);
        $us += elapsed_us($st);
        unset($l);
    }
    $t['append'][] = $us / (BULK * RECORDS);

    // BenchmarkCompact: compact of a filled log, per record.
    $us = 0.0;
    for ($i = 0; $i < BULK; $i++) {
        $l = open_log(filled_log($scratch, $rows));
        $st = hrtime(true);
        $l->compact();
        $us += elapsed_us($st);
        unset($l);
    }
    $t['compact'][] = $us / (BULK * RECORDS);

    // BenchmarkCursorRead100 and BenchmarkTimeRange100, per read.
    $l = open_log(filled_log($scratch, $rows));
    $q = RecordQuery::all()->after(bench_id(intdiv(RECORDS, 2)))->limit(100);
    $st = hrtime(true);
    for ($i = 0; $i < READS; $i++) { if (count_stream($l, $q) !== 100) { fail('cursor: wrong count'); } }
    $t['cursor'][] = elapsed_us($st) / READS;
    unset($l);

    $l = open_log(filled_log($scratch, $rows));
    $from = BASE_MS + intdiv(RECORDS, 2);
    $q = RecordQuery::all()->time_range_ms($from, $from + 99);
    $st = hrtime(true);
    for ($i = 0; $i < READS; $i++) { if (count_stream($l, $q) !== 100) { fail('time range: wrong count'); } }
    $t['timerange'][] = elapsed_us($st) / READS;
    unset($l);

    // BenchmarkReopenTornTail: append a torn line to the active segment,
    // then time the open that recovers it, per record.
    $root = filled_log($scratch, $rows);
    $dir = "$root/events";
    $manifest = json_decode(file_get_contents("$dir/manifest.jsonc"), true, 512, JSON_THROW_ON_ERROR);
    $active = "$dir/segments/" . $manifest['active']['file'];
    $us = 0.0;
    for ($i = 0; $i < BULK; $i++) {
        file_put_contents($active, "120\t0000", FILE_APPEND);
        $st = hrtime(true);
        $l = open_log($root);
        $us += elapsed_us($st);
        unset($l);
    }
    $t['reopen'][] = $us / (BULK * RECORDS);
}
foreach (['put', 'append', 'compact', 'reopen'] as $k) { row($k, median($t[$k]), 'us/record'); }
foreach (['cursor', 'timerange'] as $k) { row($k, median($t[$k]), 'us/op'); }
