package integration

import (
	"strings"
	"testing"
)

// A descriptor outlives its name, as on any local file system: fstat on a
// record's descriptor still answers after the record is removed (through
// the mount, by another process), for a new record being written, a stored
// record open for writing, and one open for reading. Found by the
// co-operation test: `sh -c 'cat x > rec'` failed with "cat: standard
// output: No such file or directory" when another writer removed rec
// between the shell's open and cat's fstat of its standard output.
func TestFstatAfterUnlink(t *testing.T) {
	requireFuse(t, "python3")
	root := demoRoot(t, 3)
	m := startMount(t, root)
	ids := storedIDs(t, root, "pages")
	script := `
import os, sys
path, mode = sys.argv[1], sys.argv[2]
fd = os.open(path, {"new": os.O_WRONLY|os.O_CREAT, "write": os.O_WRONLY, "read": os.O_RDONLY}[mode])
if mode != "read":
    os.write(fd, b'{"id":"' + os.path.basename(path)[:-6].encode() + b'","data":{}}')
os.unlink(path)
st = os.fstat(fd)
print(st.st_size, st.st_nlink)
os.close(fd)
`
	cases := map[string]string{
		"new":   m.path("pages", newID(t)+".jsonc"),
		"write": m.path("pages", ids[0]+".jsonc"),
		"read":  m.path("pages", ids[1]+".jsonc"),
	}
	for mode, path := range cases {
		t.Run(mode, func(t *testing.T) {
			out, err := run("", "python3", "-c", script, path, mode)
			if err != nil {
				t.Fatalf("fstat of a descriptor whose record was removed: %v\n%s", err, out)
			}
			if size, nlink, _ := strings.Cut(strings.TrimSpace(out), " "); nlink != "0" || size == "0" {
				t.Errorf("fstat after unlink: size %s, nlink %s; want the descriptor's content and no link", size, nlink)
			}
		})
	}
}
