<?php
// A live Queue client for the co-operation tests (integration/coop_queue_test.go).
// Usage: php queue_client.php ROOT QUEUE producer|worker NAME SECONDS SEED LOG.ndjson
// Until SECONDS have passed, a producer enqueues single jobs and batches
// (enqueueMany) with payload {"w":NAME,"n":N}; a worker claims single jobs
// and batches (claim, claimMany) and completes every job it claimed (keeping
// it as done, or not). One LOG line per call that returned:
// {"w","op":"enqueue"|"claim"|"complete","ids":[...],"payloads"?,"keep"?,"t0","t1"}
// (t0, t1: CLOCK_MONOTONIC ns around the call). A call that throws is
// logged with "err" and ends the client with exit 1.
require getenv('STORH_AUTOLOAD');

use Storh\Queue;

[, $root, $name, $role, $w, $seconds, $seed, $logFile] = $argv;
mt_srand((int) $seed);
$queue = new Queue($root, $name);
$log = fopen($logFile, 'ab');
$write = function (array $entry) use ($log): void {
    fwrite($log, json_encode($entry, JSON_UNESCAPED_SLASHES) . "\n");
};
$end = hrtime(true) + (int) ((float) $seconds * 1e9);
$n = 0;
while (hrtime(true) < $end) {
    $t0 = hrtime(true);
    try {
        if ('producer' === $role) {
            $payloads = [];
            for ($k = mt_rand(0, 1) === 0 ? 1 : mt_rand(2, 6); $k > 0; $k--) {
                $payloads[] = ['w' => $w, 'n' => ++$n];
            }
            $ids = count($payloads) === 1 ? [$queue->enqueue($payloads[0])] : $queue->enqueueMany($payloads);
            $write(['w' => $w, 'op' => 'enqueue', 'ids' => $ids, 'payloads' => $payloads, 't0' => $t0, 't1' => hrtime(true)]);
            usleep(mt_rand(0, 3000));
            continue;
        }
        $jobs = mt_rand(0, 1) === 0 ? array_filter([$queue->claim()]) : $queue->claimMany(mt_rand(2, 4));
        $ids = array_map(fn($job) => $job->id(), array_values($jobs));
        $write(['w' => $w, 'op' => 'claim', 'ids' => $ids, 't0' => $t0, 't1' => hrtime(true)]);
        if ([] === $ids) {
            usleep(2000);
            continue;
        }
        $keep = mt_rand(0, 1) === 0;
        $t0 = hrtime(true);
        if (count($ids) === 1) {
            $queue->complete($ids[0], $keep);
        } else {
            $queue->completeMany($ids, $keep);
        }
        $write(['w' => $w, 'op' => 'complete', 'ids' => $ids, 'keep' => $keep, 't0' => $t0, 't1' => hrtime(true)]);
    } catch (\Throwable $e) {
        $write(['w' => $w, 'op' => 'error', 'err' => get_class($e) . ': ' . $e->getMessage(), 't0' => $t0, 't1' => hrtime(true)]);
        exit(1);
    }
}
fclose($log);
