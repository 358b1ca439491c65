<?php
// A live DocStore client for the co-operation tests (integration/coop_doc_test.go).
// Usage: php doc_writer.php ROOT COLLECTION NAME SECONDS SEED IDS.json LOG.ndjson
// Until SECONDS have passed, puts (3 in 4) or deletes (1 in 4) a random id of
// IDS.json's "own" or "shared" list and appends one line per operation to LOG:
// {"w","n","op","id","data"?,"ok","err"?,"t0","t1"} (t0, t1: CLOCK_MONOTONIC ns,
// taken before the call and after it returned). "ok" means put/delete returned.
// One slug in five comes from a pool of four shared values, so unique-index
// conflicts with the other writers happen.
// CacheValidation::HASH: other processes rewrite these records, and STAT (by
// storh's own docs) cannot see a same-size rewrite within one mtime second.
require getenv('STORH_AUTOLOAD');

use Storh\CacheValidation;
use Storh\DocStore;
use Storh\Schema;

[, $root, $coll, $name, $seconds, $seed, $idFile, $logFile] = $argv;
mt_srand((int) $seed);
$ids = json_decode(file_get_contents($idFile), true, 512, JSON_THROW_ON_ERROR);
$schema = Schema::collection($coll)
    ->string('slug')->unique()
    ->string('kind')->index()
    ->int('score')->range();
$store = new DocStore($root, $coll, schema: $schema, cache_validation: CacheValidation::HASH);
$log = fopen($logFile, 'ab');
$end = hrtime(true) + (int) ((float) $seconds * 1e9);
for ($n = 1; hrtime(true) < $end; $n++) {
    $pool = mt_rand(0, 2) === 0 ? $ids['shared'] : $ids['own'];
    $id = $pool[mt_rand(0, count($pool) - 1)];
    $entry = ['w' => $name, 'n' => $n, 'id' => $id];
    $t0 = hrtime(true);
    try {
        if (mt_rand(0, 3) === 0) {
            $entry['op'] = 'delete';
            $store->delete($id);
        } else {
            $data = [
                'w' => $name,
                'n' => $n,
                'slug' => mt_rand(0, 4) === 0 ? 'dup-' . mt_rand(0, 3) : "s-$name-$n",
                'kind' => 'k' . mt_rand(0, 4),
                'score' => mt_rand(0, 1000),
            ];
            $entry['op'] = 'put';
            $entry['data'] = $data;
            $store->put($data, $id);
        }
        $entry['ok'] = true;
    } catch (\Throwable $e) {
        $entry['ok'] = false;
        $entry['err'] = get_class($e) . ': ' . $e->getMessage();
    }
    $entry['t0'] = $t0;
    $entry['t1'] = hrtime(true);
    fwrite($log, json_encode($entry, JSON_UNESCAPED_SLASHES) . "\n");
}
fclose($log);
