<?php
// Queue engine benchmark on the PHP library, mirroring core/queue's Go
// benchmarks (bench_test.go): 20k jobs of the same payload shape. Prints one
// JSON line per row: {"engine","row","us","unit"}. Usage:
//   php bench/php/queue.php SCRATCH_DIR [RUNS]
require getenv('STORH_AUTOLOAD');

use Storh\Queue;

$scratch = $argv[1] ?? sys_get_temp_dir();
$runs = (int) ($argv[2] ?? 3);
const JOBS = 20000;
const SINGLES = 300;   // -benchtime 300x

function payloads(int $n): array {
    $jobs = [];
    for ($i = 0; $i < $n; $i++) {
        $jobs[] = ['task' => 'render', 'page' => $i, 'url' => "https://example.test/p/$i"];
    }
    return $jobs;
}

function fresh(string $scratch): string {
    $dir = $scratch . '/q-' . bin2hex(random_bytes(6));
    mkdir($dir, 0777, true);
    return $dir;
}

function row(string $row, float $us, string $unit): void {
    echo json_encode(['engine' => 'queue', 'row' => $row, 'us' => round($us, 3), 'unit' => $unit]), "\n";
}

function median(array $xs): float { sort($xs); return $xs[intdiv(count($xs), 2)]; }

$jobs = payloads(JOBS);
$t = ['enqueueMany' => [], 'claimMany' => [], 'completeMany' => [], 'enqueue' => [], 'claim' => [], 'complete' => []];
for ($r = 0; $r < $runs; $r++) {
    $q = new Queue(fresh($scratch), 'jobs');
    $s = hrtime(true); $ids = $q->enqueueMany($jobs); $t['enqueueMany'][] = (hrtime(true) - $s) / 1e3 / JOBS;
    $s = hrtime(true); $recs = $q->claimMany(JOBS); $t['claimMany'][] = (hrtime(true) - $s) / 1e3 / JOBS;
    $s = hrtime(true); $n = $q->completeMany($ids, true); $t['completeMany'][] = (hrtime(true) - $s) / 1e3 / JOBS;
    if (count($recs) !== JOBS || $n !== JOBS) { fwrite(STDERR, "queue bench: wrong counts\n"); exit(1); }

    // The single operations, as BenchmarkEnqueue/Claim/Complete: each on
    // a fresh queue holding 20k pending (Complete: 20k claimed) jobs.
    $q = new Queue(fresh($scratch), 'jobs');
    $q->enqueueMany($jobs);
    $s = hrtime(true);
    for ($i = 0; $i < SINGLES; $i++) { $q->enqueue(['task' => 'render', 'page' => 1]); }
    $t['enqueue'][] = (hrtime(true) - $s) / 1e3 / SINGLES;
    unset($q);

    $q = new Queue(fresh($scratch), 'jobs');
    $q->enqueueMany($jobs);
    $s = hrtime(true);
    for ($i = 0; $i < SINGLES; $i++) { if (null === $q->claim()) { fwrite(STDERR, "queue bench: nothing to claim\n"); exit(1); } }
    $t['claim'][] = (hrtime(true) - $s) / 1e3 / SINGLES;
    unset($q);

    $q = new Queue(fresh($scratch), 'jobs');
    $q->enqueueMany($jobs);
    $claimed = array_map(fn($rec) => $rec->id(), $q->claimMany(JOBS));
    $s = hrtime(true);
    for ($i = 0; $i < SINGLES; $i++) { $q->complete($claimed[$i], true); }
    $t['complete'][] = (hrtime(true) - $s) / 1e3 / SINGLES;
    unset($q);
}
foreach (['enqueueMany', 'claimMany', 'completeMany'] as $k) { row($k, median($t[$k]), 'us/job'); }
foreach (['enqueue', 'claim', 'complete'] as $k) { row($k, median($t[$k]), 'us/op'); }
