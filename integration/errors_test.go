package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMountErrors(t *testing.T) {
	requireFuse(t)
	root := demoRoot(t, 5)
	tmp := t.TempDir()
	file := filepath.Join(tmp, "file")
	writeFile(t, file, "x")
	mnt := filepath.Join(tmp, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"root missing", []string{filepath.Join(tmp, "nope"), mnt}, "does not exist"},
		{"root not a directory", []string{file, mnt}, "is not a directory"},
		{"mountpoint missing", []string{root, filepath.Join(tmp, "nope")}, "does not exist"},
		{"no arguments", []string{}, "usage"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := run("", storhfsBin, append([]string{"mount"}, c.args...)...)
			if err == nil {
				t.Fatalf("mount %v succeeded", c.args)
			}
			if !strings.Contains(out, c.want) || strings.Count(strings.TrimSpace(out), "\n") != 0 {
				t.Errorf("mount %v: %q, want one line containing %q", c.args, out, c.want)
			}
		})
	}
	t.Run("already mounted", func(t *testing.T) {
		m := startMount(t, root)
		out, err := run("", storhfsBin, "mount", root, m.dir)
		if err == nil || !strings.Contains(out, "already mounted") {
			t.Errorf("second mount on %s: %v %q, want 'already mounted'", m.dir, err, out)
		}
	})
}
