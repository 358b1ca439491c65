<?php
// One indexed equality query on the PHP library, timed inside PHP (no
// process start-up), for storhfs-bench's index-folder row. Prints
// {"us":<microseconds>,"count":<records>}. Usage:
//   php bench/php/eqquery.php ROOT COLLECTION FIELD VALUE
require getenv('STORH_AUTOLOAD');

use Storh\DocStore;

[, $root, $coll, $field, $value] = $argv;
$store = new DocStore($root, $coll);
$start = hrtime(true);
$records = $store->query()->where($field)->eq($value)->get();
$us = intdiv(hrtime(true) - $start, 1000);
echo json_encode(['us' => $us, 'count' => count($records)]), "\n";
