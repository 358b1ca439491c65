<?php
// PHP side of TestKilledWritersLeaveNoIndexDrift (crashindex_test.go).
//   php crashindex.php setup ROOT       define the indexes of ROOT/pages
//   php crashindex.php write ROOT RUN   put, replace and delete records until killed
//   php crashindex.php check ROOT       exit 0 when indexed queries find exactly
//                                       the records a full scan finds
require getenv('STORH_AUTOLOAD');

[$mode, $root] = [$argv[1], $argv[2]];
$docs = new Storh\DocStore($root, 'pages');
$kinds = ['a', 'b', 'c'];
$tags = ['t0', 't1'];

if ($mode === 'setup') {
    $docs->indexes()
        ->field('slug')->unique()
        ->field('kind')
        ->field('tag')
        ->field('n')->range()
        ->sync();
    exit(0);
}

if ($mode === 'write') {
    $run = $argv[3];
    $ids = [];
    for ($i = 0; ; $i++) {
        $id = null;
        if ($i % 5 === 4 && $ids) {
            $id = $ids[array_rand($ids)]; // a replace: old entries out, new in
        }
        $data = ['slug' => "$run-$i", 'kind' => $kinds[$i % 3], 'tag' => $tags[$i % 2], 'n' => $i];
        $rec = $docs->put($data, $id);
        if ($id === null) {
            $ids[] = $rec->id();
        }
        if ($i % 7 === 6 && count($ids) > 1) {
            $k = array_rand($ids);
            $docs->delete($ids[$k]);
            unset($ids[$k]);
        }
    }
}

// check
$bySlug = [];
$byKind = [];
$byKindTag = [];
$all = [];
foreach ($docs->stream() as $rec) {
    $d = $rec->data();
    $id = $rec->id();
    $all[] = $id;
    $bySlug[$d['slug']] = $id;
    $byKind[$d['kind']][] = $id;
    $byKindTag[$d['kind'] . '/' . $d['tag']][] = $id;
}
$problems = [];
$ids = fn(array $records): array => array_map(fn($r) => $r->id(), $records);
$same = function (string $what, array $want, array $got) use (&$problems): void {
    sort($want);
    sort($got);
    if ($want !== $got) {
        $problems[] = sprintf('%s: %d records, indexed query finds %d (missing %s, extra %s)', $what,
            count($want), count($got), json_encode(array_values(array_diff($want, $got))),
            json_encode(array_values(array_diff($got, $want))));
    }
};
foreach ($bySlug as $slug => $id) {
    $same("slug=$slug", [$id], $ids($docs->query()->where('slug')->eq($slug)->get()));
}
foreach ($kinds as $k) {
    $want = $byKind[$k] ?? [];
    $same("kind=$k", $want, $ids($docs->query()->where('kind')->eq($k)->get()));
    if ($docs->query()->where('kind')->eq($k)->count() !== count($want)) {
        $problems[] = "count(kind=$k) differs from " . count($want);
    }
    foreach ($tags as $t) {
        $same("kind=$k,tag=$t", $byKindTag["$k/$t"] ?? [],
            $ids($docs->query()->where('kind')->eq($k)->where('tag')->eq($t)->get()));
    }
}
$same('n between 0 and 10^9', $all, $ids($docs->query()->where('n')->between(0, 1000000000)->get()));
echo json_encode(['records' => count($all), 'problems' => array_slice($problems, 0, 10)]), "\n";
exit($problems ? 1 : 0);
