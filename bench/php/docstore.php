<?php
// DocStore engine benchmark on the PHP library, mirroring core/docstore's Go
// benchmarks (bench_test.go): 20k-record collections of the same records,
// written directly with the record file's canonical bytes and no fsync (as
// the Go fixture does), the same index definitions, operations, iteration
// counts and id sequences. Prints one JSON line per row:
// {"engine","row","us","unit"}. Usage:
//   php bench/php/docstore.php SCRATCH_DIR [RUNS]
require getenv('STORH_AUTOLOAD');

use Storh\DocStore;

$scratch = $argv[1] ?? sys_get_temp_dir();
$runs = (int) ($argv[2] ?? 3);
const RECORDS = 20000;
const PUTS = 300;          // -benchtime 300x
const GETS = 5000;         // -benchtime 5000x
const SCANS = 3;           // -benchtime 3x
const QUERIES = 2000;      // -benchtime 2000x
const FLAGS = JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_PRESERVE_ZERO_FRACTION | JSON_THROW_ON_ERROR;

function bench_data(int $i): array {
    return ['title' => "Record number $i", 'kind' => 'k' . ($i % 10), 'tag' => 't' . ($i % 50),
        'n' => $i, 'body' => 'A short body of text for the benchmark.'];
}

// uuid_at is a UUIDv7 for the millisecond $ms with random bits, as the Go
// fixture's uuidv7 generator NewAt.
function uuid_at(int $ms): string {
    $r = random_bytes(8);
    return sprintf('%08x-%04x-7%03x-%04x-%012x', $ms >> 16, $ms & 0xffff,
        unpack('n', $r, 0)[1] & 0xfff, 0x8000 | (unpack('n', $r, 2)[1] & 0x3fff),
        unpack('J', "\0\0" . substr($r, 2, 6))[1] & 0xffffffffffff);
}

// fixture builds ROOT/pages with RECORDS records (ids one millisecond apart
// from 2024-05-01) and, when $indexed, the indexes kind, tag and range n.
function fixture(string $scratch, bool $indexed): array {
    $root = $scratch . '/d-' . bin2hex(random_bytes(6));
    $base = (new DateTimeImmutable('2024-05-01T00:00:00Z'))->getTimestamp() * 1000;
    $ids = [];
    for ($i = 0; $i < RECORDS; $i++) {
        $id = uuid_at($base + $i);
        $ids[] = $id;
        $dir = "$root/pages/data/" . substr($id, 24, 2);
        if (!is_dir($dir)) { mkdir($dir, 0777, true); }
        file_put_contents("$dir/$id.jsonc", '{"id":"' . $id . '","data":' . json_encode(bench_data($i), FLAGS) . "}\n");
    }
    if ($indexed) {
        $s = new DocStore($root, 'pages');
        $s->indexes()->define_field('kind')->define_field('tag')->define_field('n', false, true)->sync(true);
        unset($s);
    }
    exec('sync');
    return [$root, $ids];
}

function row(string $row, float $us, string $unit): void {
    echo json_encode(['engine' => 'docstore', 'row' => $row, 'us' => round($us, 3), 'unit' => $unit]), "\n";
}

function median(array $xs): float { sort($xs); return $xs[intdiv(count($xs), 2)]; }

function fail(string $msg): void { fwrite(STDERR, "docstore bench: $msg\n"); exit(1); }

function elapsed_us(int $start): float { return (hrtime(true) - $start) / 1e3; }

$t = [];
for ($r = 0; $r < $runs; $r++) {
    // BenchmarkPut: generated ids, into a 20k collection.
    [$root] = fixture($scratch, false);
    $s = new DocStore($root, 'pages');
    $st = hrtime(true);
    for ($i = 0; $i < PUTS; $i++) { $s->put(bench_data($i)); }
    $t['put'][] = elapsed_us($st) / PUTS;
    unset($s);

    // BenchmarkPutRaw: the caller's id and content. PHP has no raw put; the
    // nearest is put with the caller's id (no parse of the bytes is charged).
    [$root] = fixture($scratch, false);
    $s = new DocStore($root, 'pages');
    $st = hrtime(true);
    for ($i = 0; $i < PUTS; $i++) { $s->put(bench_data($i), uuid_at((int) (microtime(true) * 1000))); }
    $t['putraw'][] = elapsed_us($st) / PUTS;
    unset($s);

    [$root, $ids] = fixture($scratch, false);
    // BenchmarkGetCold: a fresh store, ids spread over the collection.
    $s = new DocStore($root, 'pages');
    $st = hrtime(true);
    for ($i = 0; $i < GETS; $i++) {
        if (null === $s->get($ids[($i * 7919) % RECORDS])) { fail('get: missing record'); }
    }
    $t['get'][] = elapsed_us($st) / GETS;
    unset($s);

    // BenchmarkStream: every record, per record.
    $s = new DocStore($root, 'pages');
    $n = 0;
    $st = hrtime(true);
    for ($i = 0; $i < SCANS; $i++) { foreach ($s->stream() as $rec) { $n++; } }
    $t['stream'][] = elapsed_us($st) / $n;
    unset($s);

    // BenchmarkExportJSONL: per record.
    $s = new DocStore($root, 'pages');
    $out = "$root/export.jsonl";
    $st = hrtime(true);
    for ($i = 0; $i < SCANS; $i++) {
        if ($s->exportJsonl($out) !== RECORDS) { fail('export: wrong count'); }
    }
    $t['export'][] = elapsed_us($st) / (SCANS * RECORDS);
    unset($s);

    [$root] = fixture($scratch, true);
    // BenchmarkQueryEqualityIndexed: kind = k<i%10>, limit 100, per query.
    $s = new DocStore($root, 'pages');
    $st = hrtime(true);
    for ($i = 0; $i < QUERIES; $i++) {
        if (count($s->query()->where('kind')->eq('k' . ($i % 10))->limit(100)->get()) !== 100) { fail('query: wrong count'); }
    }
    $t['query'][] = elapsed_us($st) / QUERIES;
    unset($s);

    // BenchmarkCountIndexed: 2000 of 20k match, per count.
    $s = new DocStore($root, 'pages');
    $st = hrtime(true);
    for ($i = 0; $i < QUERIES; $i++) {
        if ($s->query()->where('kind')->eq('k' . ($i % 10))->count() !== RECORDS / 10) { fail('count: wrong count'); }
    }
    $t['count'][] = elapsed_us($st) / QUERIES;
    unset($s);

    // BenchmarkReindex: rebuild of kind, tag and range n from the record
    // files, per record.
    [$root] = fixture($scratch, true);
    $s = new DocStore($root, 'pages');
    $st = hrtime(true);
    for ($i = 0; $i < SCANS; $i++) { $s->reindex(); }
    $t['reindex'][] = elapsed_us($st) / (SCANS * RECORDS);
    unset($s);
}
foreach (['put', 'putraw', 'get', 'stream', 'export', 'reindex'] as $k) { row($k, median($t[$k]), 'us/record'); }
foreach (['query', 'count'] as $k) { row($k, median($t[$k]), 'us/op'); }
