<?php
// A live SegmentedLog client for the co-operation tests (integration/coop_log_test.go).
// Usage: php log_client.php ROOT COLLECTION appender|compactor NAME SECONDS SEED LOG.ndjson
// An appender appends, until SECONDS have passed, single records (put) and
// batches (appendMany) with data {"w":NAME,"n":N}, N counting records from 1,
// into segments of at most 16 KiB (so segments roll). A compactor waits
// half of SECONDS, then compacts the log once. One LOG line per call that
// returned: {"w","op":"append"|"compact","ids"?,"datas"?,"t0","t1"} (t0, t1:
// CLOCK_MONOTONIC ns around the call). A call that throws is logged with
// "err" and ends the client with exit 1.
require getenv('STORH_AUTOLOAD');

use Storh\SegmentedLog;

[, $root, $coll, $role, $w, $seconds, $seed, $logFile] = $argv;
mt_srand((int) $seed);
$store = new SegmentedLog($root, $coll, max_segment_bytes: 16384);
$log = fopen($logFile, 'ab');
$write = function (array $entry) use ($log): void {
    fwrite($log, json_encode($entry, JSON_UNESCAPED_SLASHES) . "\n");
};
$end = hrtime(true) + (int) ((float) $seconds * 1e9);
$n = 0;
try {
    if ('compactor' === $role) {
        usleep((int) ((float) $seconds * 5e5));
        $t0 = hrtime(true);
        $store->compact();
        $write(['w' => $w, 'op' => 'compact', 't0' => $t0, 't1' => hrtime(true)]);
        exit(0);
    }
    while (hrtime(true) < $end) {
        $datas = [];
        for ($k = mt_rand(0, 1) === 0 ? 1 : mt_rand(2, 6); $k > 0; $k--) {
            $datas[] = ['w' => $w, 'n' => ++$n];
        }
        $t0 = hrtime(true);
        $records = count($datas) === 1 ? [$store->put($datas[0])] : $store->appendMany($datas);
        $ids = array_map(fn($r) => $r->id(), $records);
        $write(['w' => $w, 'op' => 'append', 'ids' => $ids, 'datas' => $datas, 't0' => $t0, 't1' => hrtime(true)]);
        usleep(mt_rand(0, 2000));
    }
} catch (\Throwable $e) {
    $write(['w' => $w, 'op' => 'error', 'err' => get_class($e) . ': ' . $e->getMessage(), 't0' => 0, 't1' => hrtime(true)]);
    exit(1);
}
fclose($log);
