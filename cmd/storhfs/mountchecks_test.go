package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/storhfs/storhfs/fusefs"
	"github.com/storhfs/storhfs/internal/engines"
)

func TestCheckOverlap(t *testing.T) {
	cases := []struct {
		root, mountpoint, want string // want "" = no overlap
	}{
		{"/srv/root", "/srv/root", "are the same directory"},
		{"/srv/root", "/srv/root/mnt", "is inside storage root"},
		{"/srv/root", "/srv/root/a/b/mnt", "is inside storage root"},
		{"/srv/root/sub", "/srv/root", "is inside mountpoint"},
		{"/", "/mnt", "is inside storage root"},
		{"/srv/root", "/srv/root2", ""},
		{"/srv/root2", "/srv/root", ""},
		{"/srv/root", "/srv/mnt", ""},
		{"/srv/root", "/srv/..root", ""},
	}
	for _, c := range cases {
		err := checkOverlap(c.root, c.root, c.mountpoint, c.mountpoint)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("root %s, mountpoint %s: %v, want no overlap", c.root, c.mountpoint, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("root %s, mountpoint %s: %v, want %q", c.root, c.mountpoint, err, c.want)
		}
	}
	err := checkOverlap("/srv/link", "/srv/root", "/srv/root/mnt", "/srv/root/mnt")
	if err == nil || !strings.Contains(err.Error(), "/srv/link (resolves to /srv/root)") {
		t.Errorf("a symlinked root is named with what it resolves to: %v", err)
	}
}

func TestCheckMountpointEmpty(t *testing.T) {
	dir := t.TempDir()
	if err := checkMountpointEmpty(dir, false); err != nil {
		t.Fatalf("empty mountpoint: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".hidden"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := checkMountpointEmpty(dir, false)
	if err == nil || !strings.Contains(err.Error(), "--allow-non-empty") || strings.Contains(err.Error(), "\n") {
		t.Errorf("non-empty mountpoint: %v, want one line naming --allow-non-empty", err)
	}
	if err := checkMountpointEmpty(dir, true); err != nil {
		t.Errorf("non-empty mountpoint allowed: %v", err)
	}
}

// isCollectionDir is a DocStore backend that knows collections by data/.
type isCollectionDir struct{ docStores }

func (isCollectionDir) IsCollection(dir string) bool {
	fi, err := os.Stat(filepath.Join(dir, "data"))
	return err == nil && fi.IsDir()
}

func TestCheckForeignRoot(t *testing.T) {
	mk := func(t *testing.T, paths ...string) string {
		root := t.TempDir()
		for _, p := range paths {
			if err := os.MkdirAll(filepath.Join(root, p), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		return root
	}
	check := func(root string, allowed bool) error {
		return checkForeignRoot(root, &fusefs.DirCatalog{Root: root, Docs: isCollectionDir{}, Logs: engines.Logs{}, Queues: engines.Queues{}}, allowed)
	}
	for name, root := range map[string]string{
		"empty":                  mk(t),
		"only lost+found":        mk(t, "lost+found"),
		"a collection":           mk(t, "pages/data"),
		"a collection and files": mk(t, "pages/data", "Documents"),
		"a nested collection":    mk(t, "app/users/data", "notes"),
	} {
		if err := check(root, false); err != nil {
			t.Errorf("%s root refused: %v", name, err)
		}
	}
	home := mk(t, "Documents", "Music", ".cache", "projects", "lost+found")
	err := check(home, false)
	if err == nil || !strings.Contains(err.Error(), "--allow-foreign-root") || !strings.Contains(err.Error(), `".cache", "Documents", "Music" and 1 more`) {
		t.Errorf("home directory: %v, want a refusal quoting three entries and naming --allow-foreign-root", err)
	}
	if err := check(home, true); err != nil {
		t.Errorf("home directory allowed: %v", err)
	}
}
