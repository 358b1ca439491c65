package integration

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"
)

// A commit refused at one close(2) stays refused for the other descriptors
// of the same open file: when the shell's own copy of a redirect closes
// after the tool's (`sh -c 'cat x > rec'`: dash's dup2 after cat exits),
// the content the tool was told is not stored must not be stored then,
// even though the unique conflict that refused it is gone by that time.
// (Found by TestCoopDocStore: a refused `cat >` landed a moment later.)
func TestRefusedCommitStaysRefused(t *testing.T) {
	requireFuse(t)
	root := demoRoot(t, 5)
	m := startMount(t, root)
	holder := storedIDs(t, root, "pages")[0]
	var rec struct {
		Data map[string]any `json:"data"`
	}
	mustOK(t, json.Unmarshal(readFile(t, storedPath(root, "pages", holder)), &rec))
	slug, _ := json.Marshal(rec.Data["slug"])

	fresh := newID(t)
	f, err := os.OpenFile(m.path("pages", fresh+".jsonc"), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	mustOK(t, err)
	copyFD, err := syscall.Dup(int(f.Fd()))
	mustOK(t, err)
	_, err = f.WriteString(record(fresh, fmt.Sprintf(`{"slug":%s}`, slug)))
	mustOK(t, err)
	if err := f.Close(); !errors.Is(err, syscall.EINVAL) {
		syscall.Close(copyFD)
		t.Fatalf("close of a record taking another's unique slug: %v, want EINVAL", err)
	}
	// The conflict goes away; then the other descriptor closes.
	sh(t, "", fmt.Sprintf(`echo '{"id":"%s","data":{"slug":"moved-away"}}' | %s put %s pages %s`, holder, storhfsBin, root, holder))
	if err := syscall.Close(copyFD); err != syscall.EINVAL {
		t.Errorf("the later close of the other descriptor: %v, want EINVAL (the refusal stands)", err)
	}
	if _, err := os.Stat(storedPath(root, "pages", fresh)); !os.IsNotExist(err) {
		t.Errorf("the refused content was stored after its close failed: %v", err)
	}
	verify(t, root, "pages")
}
