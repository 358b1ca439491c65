<?php
// Creates COLLECTION under ROOT with the co-operation tests' schema (slug
// unique, kind equality, score range), so every writer starts from the same
// index manifest. Usage: php doc_setup.php ROOT COLLECTION
require getenv('STORH_AUTOLOAD');

use Storh\DocStore;
use Storh\Schema;

[, $root, $coll] = $argv;
$schema = Schema::collection($coll)
    ->string('slug')->unique()
    ->string('kind')->index()
    ->int('score')->range();
new DocStore($root, $coll, schema: $schema);
