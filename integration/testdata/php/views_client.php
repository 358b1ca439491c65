<?php
// A PHP client of the index-folder tests (views_test.go). Usage:
//   php views_client.php ROOT COLL index FIELD...     equality indexes on FIELDs (rebuilt)
//   php views_client.php ROOT COLL put JSON [ID]      prints the record id
//   php views_client.php ROOT COLL delete ID
//   php views_client.php ROOT COLL eq FIELD JSON      the ids of the indexed query, one a line
require getenv('STORH_AUTOLOAD');

use Storh\DocStore;

[, $root, $coll, $cmd] = $argv;
$args = array_slice($argv, 4);
$store = new DocStore($root, $coll);
$flags = JSON_THROW_ON_ERROR;
switch ($cmd) {
    case 'index':
        foreach ($args as $field) {
            $store->indexes()->define_field($field);
        }
        $store->indexes()->sync(true);
        break;
    case 'put':
        $record = $store->put(json_decode($args[0], true, 512, $flags), $args[1] ?? null);
        echo $record->id(), "\n";
        break;
    case 'delete':
        $store->delete($args[0]);
        break;
    case 'eq':
        $value = json_decode($args[1], true, 512, $flags);
        foreach ($store->query()->where($args[0])->eq($value)->get() as $record) {
            echo $record->id(), "\n";
        }
        break;
    default:
        fwrite(STDERR, "unknown command $cmd\n");
        exit(2);
}
