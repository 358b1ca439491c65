package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// phpWriterScript puts records in a loop with Storh\DocStore: new ones and
// rewrites of its own, printing "TRY writer id v" before a rewrite and
// "ACK writer id v" once put() returned. argv: ROOT COLLECTION NAME.
const phpWriterScript = `<?php
require getenv('STORH_AUTOLOAD');
[, $root, $collection, $writer] = $argv;
$store = new Storh\DocStore($root, $collection);
$own = [];
for ($v = 0; ; $v++) {
    $id = ($v % 3 !== 0 && $own) ? $own[array_rand($own)] : null;
    if ($id !== null) {
        echo "TRY $writer $id $v\n";
    }
    $data = ['writer' => $writer, 'v' => $v, 'pad' => str_repeat('p', 100 + $v * 37 % 900)];
    $record = $store->put($data, $id);
    if ($id === null) {
        $own[] = $record->id();
        echo "TRY $writer {$record->id()} $v\n";
    }
    echo "ACK $writer {$record->id()} $v\n";
}
`

// phpSetupScript creates COLLECTION with an index on "writer" and one record.
const phpSetupScript = `<?php
require getenv('STORH_AUTOLOAD');
[, $root, $collection] = $argv;
$store = new Storh\DocStore($root, $collection);
$store->indexes()->define_field('writer');
$store->put(['writer' => 'setup', 'v' => 0, 'pad' => '']);
`

func writePHPScript(t *testing.T, name, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// phpCommand runs a PHP script with the oracle's autoloader.
func phpCommand(autoload, script string, args ...string) *exec.Cmd {
	cmd := exec.Command("php", append([]string{script}, args...)...)
	cmd.Env = append(os.Environ(), "STORH_AUTOLOAD="+autoload)
	return cmd
}
