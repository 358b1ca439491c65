package integration

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestNoOpenWriters: on a read-write mount the kernel sends no OPEN
// (--no-open, fusefs/nodewrites.go), so writes have no handle and a close
// names none. What decides is which process closes: a reader's close in
// the middle of another process's write stores nothing, the writer's close
// stores what it wrote; a shared mapping's writes are stored once the
// kernel writes them back (msync); a truncation no process completes is
// refused and reported once its process is gone.
func TestNoOpenWriters(t *testing.T) {
	requireFuse(t, "python3", "cat", "sh")
	root := demoRoot(t, 3)
	m := startMount(t, root, "--no-open")
	ids := storedIDs(t, root, "pages")

	t.Run("a reader's close does not commit a writer's buffer", func(t *testing.T) {
		id := ids[0]
		rec := m.path("pages", id+".jsonc")
		before := storedContent(t, root, "pages", id)
		// The writer writes a whole record, waits for a line on stdin, then
		// writes another over it: a close that committed in between would
		// store the first.
		first, want := record(id, `{"slug":"draft-aaaa"}`), record(id, `{"slug":"final-bbbb"}`)
		// The reader opens the record first, so that it closes the node the
		// writer writes through (a later lookup may give a fresh node).
		reader, err := os.Open(rec)
		mustOK(t, err)
		writer := exec.Command("python3", "-c", `
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_TRUNC)
os.write(fd, sys.argv[2].encode())
print("half", flush=True)
sys.stdin.readline()
os.pwrite(fd, sys.argv[3].encode(), 0)
os.close(fd)
`, rec, first, want)
		stdin, err := writer.StdinPipe()
		mustOK(t, err)
		stdout, err := writer.StdoutPipe()
		mustOK(t, err)
		mustOK(t, writer.Start())
		t.Cleanup(func() { writer.Process.Kill(); writer.Wait() })
		if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "half\n" {
			t.Fatalf("writer: %q %v", line, err)
		}
		mustOK(t, reader.Close())
		if got := storedContent(t, root, "pages", id); got != before {
			t.Fatalf("a reader's close stored the writer's unfinished record: %q", got)
		}
		stdin.Write([]byte("\n"))
		if err := writer.Wait(); err != nil {
			t.Fatalf("writer: %v", err)
		}
		if got := storedContent(t, root, "pages", id); got != want {
			t.Errorf("stored %q after the writer's close, want %q", got, want)
		}
		verify(t, root, "pages")
	})

	t.Run("a shared mapping's writes are committed at write-back", func(t *testing.T) {
		id := ids[1]
		rec := m.path("pages", id+".jsonc")
		before := storedContent(t, root, "pages", id)
		// The same length, so the mapping covers it.
		want := strings.Replace(before, `"slug":"page`, `"slug":"PAGE`, 1)
		if want == before {
			t.Fatalf("no slug to change in the demo record %q", before)
		}
		out, err := run("", "python3", "-c", `
import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
m = mmap.mmap(fd, 0, mmap.MAP_SHARED)
os.close(fd)
m[:] = sys.argv[2].encode()
m.flush()
m.close()
`, rec, want)
		if err != nil {
			t.Fatalf("mmap write: %v\n%s", err, out)
		}
		if got := storedContent(t, root, "pages", id); got != want {
			t.Errorf("stored %q after msync, want %q", got, want)
		}
		if got := string(readFile(t, rec)); got != want {
			t.Errorf("the mount reads %q, want %q", got, want)
		}
	})

	t.Run("an empty truncation is refused once its process is gone", func(t *testing.T) {
		id := ids[2]
		rec := m.path("pages", id+".jsonc")
		before := storedContent(t, root, "pages", id)
		run("", "sh", "-c", ": > "+rec)
		if got := storedContent(t, root, "pages", id); got != before {
			t.Fatalf("an empty truncation was stored: %q", got)
		}
		if got := string(readFile(t, rec)); got != before {
			t.Errorf("the mount reads %q after a refused truncation", got)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			errs, _ := os.ReadFile(m.path(".storhfs", "errors"))
			if strings.Contains(string(errs), id) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf(".storhfs/errors does not report the refused truncation after 10 s: %q", errs)
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
}
