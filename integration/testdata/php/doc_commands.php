<?php
// A DocStore client driven line by line (integration/shared_test.go).
// Usage: php doc_commands.php ROOT COLLECTION [coop]
// With "coop", the store has the co-operation tests' schema (doc_setup.php).
// Reads commands from stdin: "put ID JSON" (JSON is the data object) or
// "delete ID"; answers each with one line, "ok" once the call returned, or
// "err MESSAGE".
require getenv('STORH_AUTOLOAD');

use Storh\CacheValidation;
use Storh\DocStore;
use Storh\Schema;

[, $root, $coll] = $argv;
$schema = null;
if ('coop' === ($argv[3] ?? '')) {
    $schema = Schema::collection($coll)
        ->string('slug')->unique()
        ->string('kind')->index()
        ->int('score')->range();
}
$store = new DocStore($root, $coll, schema: $schema, cache_validation: CacheValidation::HASH);
while (($line = fgets(STDIN)) !== false) {
    $parts = explode(' ', rtrim($line, "\n"), 3);
    try {
        if ('put' === $parts[0]) {
            $store->put(json_decode($parts[2], true, 512, JSON_THROW_ON_ERROR), $parts[1]);
        } else {
            $store->delete($parts[1]);
        }
        echo "ok\n";
    } catch (\Throwable $e) {
        echo 'err ', str_replace("\n", ' ', $e->getMessage()), "\n";
    }
}
