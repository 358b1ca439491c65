package integration

import (
	"path/filepath"
	"strings"
	"testing"
)

// Every folder of the mount lists "." and ".." first, as any file system
// does, whatever it shows: the root and namespaces, collections, logs and
// their segments folder, queues.
func TestListingsHaveDotEntries(t *testing.T) {
	requireFuse(t, "ls", "stat")
	root := demoRoot(t, 5)
	m := startMount(t, root)
	stored := len(storedIDs(t, root, "pages"))
	for _, rel := range []string{".", "app", "pages", "app/users", "events", "events/segments", "jobs"} {
		dir := m.path(rel)
		// -f: unsorted, as the mount lists them (ls sorts otherwise).
		names := strings.Fields(runOK(t, "", "ls", "-a", "-f", dir))
		if len(names) < 2 || names[0] != "." || names[1] != ".." {
			t.Errorf("ls -a -f %s: %q, want . and .. first", rel, names)
			continue
		}
		for _, n := range names[2:] {
			if n == "." || n == ".." {
				t.Errorf("ls -a %s lists %q twice: %q", rel, n, names)
			}
		}
		// The inode numbers shown for "." and ".." are the folder's and its parent's.
		ino := strings.Fields(runOK(t, "", "ls", "-a", "-f", "-i", dir))
		self := strings.TrimSpace(runOK(t, "", "stat", "-c", "%i", dir))
		parent := strings.TrimSpace(runOK(t, "", "stat", "-c", "%i", filepath.Dir(dir)))
		if rel == "." {
			parent = ino[2] // the mount root's ".." is outside the mount
		}
		if len(ino) < 4 || ino[0] != self || ino[2] != parent {
			t.Errorf("ls -a -i %s: %q, want . with inode %s and .. with %s", rel, ino, self, parent)
		}
		if rel == "pages" && len(names) != 2+stored {
			t.Errorf("ls -a pages lists %d names, want . .. and %d records", len(names), stored)
		}
	}
	// ls -l still describes every record (READDIRPLUS after the dots).
	out := runOK(t, "", "ls", "-l", m.path("pages"))
	if got := strings.Count(out, ".jsonc"); got != stored {
		t.Errorf("ls -l pages shows %d records, want %d:\n%s", got, stored, out)
	}
}
