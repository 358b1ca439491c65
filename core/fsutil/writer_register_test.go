package fsutil

import (
	"os"
	"strconv"
	"testing"
)

// A marker deleted by someone else (PHP as another user counts our pid as
// dead) is recreated at the next Register, so our temps stay protected.
func TestRegisterRecreatesDeletedMarker(t *testing.T) {
	dir := t.TempDir()
	w := NewWriter(dir)
	if err := w.Register(); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(w.MarkerPath()); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(WritersDir(dir)); err != nil {
		t.Fatal(err)
	}
	if err := w.Register(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(w.MarkerPath()); err != nil {
		t.Fatalf("marker not recreated: %v", err)
	}
}

func TestMarkerLive(t *testing.T) {
	cases := []struct {
		name string
		live bool
	}{
		{strconv.Itoa(os.Getpid()) + ".0123abcd", true},
		{"2147483646.0123abcd", false},
		{"not-a-pid", false},
		{"p3fa90123456789ab.0123abcd", false},
		{"", false},
	}
	for _, c := range cases {
		if got := !OneHost.markerStale(c.name); got != c.live {
			t.Errorf("MarkerLive(%q) = %v, want %v", c.name, got, c.live)
		}
	}
}
