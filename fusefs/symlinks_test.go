package fusefs

import (
	"bytes"
	"errors"
	"fmt"
	"log"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/storhfs/storhfs/core/fsutil"
)

func TestSymlinkLogOncePerPath(t *testing.T) {
	var out bytes.Buffer
	r := symlinkLog{refusals: newRefusalLog(log.New(&out, "", 0))}
	a := fmt.Errorf("read: %w", &fsutil.SymlinkError{Op: "open", Path: "/r/c/data/ab/x.jsonc"})
	b := &fsutil.SymlinkError{Op: "stat", Path: "/r/evil"}
	for i := 0; i < 3; i++ {
		if !r.note(a) || !r.note(b) {
			t.Fatal("a refused symlink was not recognised")
		}
	}
	for _, err := range []error{nil, os.ErrNotExist, syscall.ELOOP, errors.New("x")} {
		if r.note(err) {
			t.Errorf("note(%v) = true", err)
		}
	}
	if n := strings.Count(out.String(), "\n"); n != 2 || !strings.Contains(out.String(), "/r/c/data/ab/x.jsonc") || !strings.Contains(out.String(), "/r/evil") {
		t.Fatalf("log:\n%s\nwant each path once", out.String())
	}

	out.Reset()
	for i := 0; i < maxRefusalsLogged+10; i++ {
		r.note(&fsutil.SymlinkError{Op: "stat", Path: fmt.Sprint(i)})
	}
	if n := strings.Count(out.String(), "\n"); n != maxRefusalsLogged-2+1 {
		t.Fatalf("%d lines logged past the cap, want %d", n, maxRefusalsLogged-1)
	}
}
