<?php
// The PHP side of bench/engines' interleaved rows (bench/engines/interleave.go):
// one long-lived process that builds one row's data set, prints "ready", then
// for every line "N" on stdin does the next N operations and prints their
// elapsed time in nanoseconds; it exits on EOF. The data sets, operations and
// ids are those of docstore.php, seglog.php and queue.php. Usage:
//   php bench/php/interleave.php ENGINE ROW DIR
// (docstore put|putraw, seglog put, queue enqueue|claim|complete)
require getenv('STORH_AUTOLOAD');

use Storh\DocStore;
use Storh\Queue;
use Storh\SegmentedLog;

[, $engine, $row, $dir] = $argv + [null, '', '', ''];
const RECORDS = 20000;

function fail(string $msg): void { fwrite(STDERR, "interleave bench: $msg\n"); exit(1); }

// docstore.php's bench_data, uuid_at and fixture (without indexes).
function doc_data(int $i): array {
    return ['title' => "Record number $i", 'kind' => 'k' . ($i % 10), 'tag' => 't' . ($i % 50),
        'n' => $i, 'body' => 'A short body of text for the benchmark.'];
}

function uuid_at(int $ms): string {
    $r = random_bytes(8);
    return sprintf('%08x-%04x-7%03x-%04x-%012x', $ms >> 16, $ms & 0xffff,
        unpack('n', $r, 0)[1] & 0xfff, 0x8000 | (unpack('n', $r, 2)[1] & 0x3fff),
        unpack('J', "\0\0" . substr($r, 2, 6))[1] & 0xffffffffffff);
}

function doc_fixture(string $root): DocStore {
    $base = (new DateTimeImmutable('2024-05-01T00:00:00Z'))->getTimestamp() * 1000;
    $flags = JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_PRESERVE_ZERO_FRACTION | JSON_THROW_ON_ERROR;
    for ($i = 0; $i < RECORDS; $i++) {
        $id = uuid_at($base + $i);
        $sub = "$root/pages/data/" . substr($id, 24, 2);
        if (!is_dir($sub)) { mkdir($sub, 0777, true); }
        file_put_contents("$sub/$id.jsonc", '{"id":"' . $id . '","data":' . json_encode(doc_data($i), $flags) . "}\n");
    }
    return new DocStore($root, 'pages');
}

// seglog.php's bench_id and bench_data.
function log_id(int $i): string {
    $ts = 1716384278000 + $i;
    return sprintf('%08x-%04x-7000-8000-%012x', $ts >> 16, $ts & 0xffff, $i);
}

// queue.php's queue of 20k pending jobs.
function queue_fixture(string $dir): Queue {
    $q = new Queue($dir, 'jobs');
    $jobs = [];
    for ($i = 0; $i < RECORDS; $i++) { $jobs[] = ['task' => 'render', 'page' => $i, 'url' => "https://example.test/p/$i"]; }
    $q->enqueueMany($jobs);
    return $q;
}

// $op(i) does operation i (0, 1, 2, ... across bursts).
switch ("$engine $row") {
case 'docstore put':
    $s = doc_fixture($dir);
    $op = function (int $i) use ($s) { $s->put(doc_data($i)); };
    break;
case 'docstore putraw':
    $s = doc_fixture($dir);
    $op = function (int $i) use ($s) { $s->put(doc_data($i), uuid_at((int) (microtime(true) * 1000))); };
    break;
case 'seglog put':
    $l = new SegmentedLog($dir, 'events', 16384);
    $d = ['type' => 'page.saved', 'n' => 1, 'ratio' => 0.5, 'path' => '/a/b/c'];
    $op = function (int $i) use ($l, $d) { $l->put($d, log_id($i)); };
    break;
case 'queue enqueue':
    $q = queue_fixture($dir);
    $op = function (int $i) use ($q) { $q->enqueue(['task' => 'render', 'page' => 1]); };
    break;
case 'queue claim':
    $q = queue_fixture($dir);
    $op = function (int $i) use ($q) { if (null === $q->claim()) { fail('nothing to claim'); } };
    break;
case 'queue complete':
    $q = queue_fixture($dir);
    $claimed = array_map(fn($rec) => $rec->id(), $q->claimMany(RECORDS));
    $op = function (int $i) use ($q, $claimed) { $q->complete($claimed[$i], true); };
    break;
default:
    fail("unknown row \"$engine $row\"");
}
echo "ready\n";

$next = 0;
while (($line = fgets(STDIN)) !== false) {
    $n = (int) $line;
    $st = hrtime(true);
    for ($end = $next + $n; $next < $end; $next++) { $op($next); }
    echo hrtime(true) - $st, "\n";
}
