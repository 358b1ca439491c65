package scratch

import (
	"os"
	"testing"
)

func TestDirLifecycle(t *testing.T) {
	var d Dir
	a, b := d.New(t), d.New(t)
	if a == b {
		t.Fatalf("New returned %s twice", a)
	}
	root := d.Path(t)
	for _, p := range []string{a, b} {
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			t.Fatalf("%s: %v", p, err)
		}
	}
	d.Remove()
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Fatalf("%s still there after Remove: %v", root, err)
	}
}
