package conformance

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
)

func TestNormalisePaths(t *testing.T) {
	pid := strconv.Itoa(os.Getpid())
	n := &normaliser{root: "/r", pid: pid, tokens: map[string]string{"1234abcd": "00000000", "deadbeef": "ffffffff"}}
	cases := []struct {
		in, out string
		keep    bool
	}{
		{"pages/.storh/writers/" + pid + ".0badf00d", "", false},
		{".storh/writers/" + pid + ".0badf00d", "", false},
		{"pages/.storh/writers/" + pid + ".0BADF00D", "pages/.storh/writers/" + pid + ".0BADF00D", true},
		{"pages/.storh/writers/" + pid + ".0badf00", "pages/.storh/writers/" + pid + ".0badf00", true},
		{"pages/.storh/writers/2147483646.deadbeef", "pages/.storh/writers/2147483646.deadbeef", true},
		{"pages/writers/" + pid + ".0badf00d", "pages/writers/" + pid + ".0badf00d", true},
		{"ev/segments/compact-1234abcd-000001.ndjson", "ev/segments/compact-00000000-000001.ndjson", true},
		{"ev/partitions/2023-11/segments/compact-deadbeef-000002.idx.jsonc", "ev/partitions/2023-11/segments/compact-ffffffff-000002.idx.jsonc", true},
		{"ev/segments/compact-99999999-000001.ndjson", "ev/segments/compact-99999999-000001.ndjson", true},
		{"ev/other/compact-1234abcd-000001.ndjson", "ev/other/compact-1234abcd-000001.ndjson", true},
		{"p/.storh/corrupt/id-0a1b2c3d.jsonc", "p/.storh/corrupt/id-00000000.jsonc", true},
		{"p/.storh/corrupt/018f6d9e-dd58-7c60-8f88-b18223c6eaf4.jsonc", "p/.storh/corrupt/018f6d9e-dd58-7c60-8f88-b18223c6eaf4.jsonc", true},
		{"p/.storh/corrupt/id-0A1B2C3D.jsonc", "p/.storh/corrupt/id-0A1B2C3D.jsonc", true},
		{"p/data/ab/id-0a1b2c3d.jsonc", "p/data/ab/id-0a1b2c3d.jsonc", true},
		{"file-at-top", "file-at-top", true},
	}
	for _, c := range cases {
		out, keep := n.path(c.in, false)
		if out != c.out || keep != c.keep {
			t.Errorf("path(%q) = %q, %v; want %q, %v", c.in, out, keep, c.out, c.keep)
		}
	}
	if out, keep := n.path("ev/segments", true); out != "ev/segments" || !keep {
		t.Fatal("directories are never renamed or dropped")
	}
}

func TestNormaliseValue(t *testing.T) {
	n := &normaliser{root: "/tmp/r", tokens: map[string]string{"1234abcd": "00000000"}}
	in := phpjson.NewArray(3)
	in.SetString("error", "Could not read storage file: /tmp/r/p/x.jsonc and /tmp/r")
	in.SetString("/tmp/r/key", phpjson.NewList("compact-1234abcd-000001.ndjson", int64(1), 1.5, nil, true))
	in.SetString("n", int64(7))
	got, err := phpjson.Encode(n.value(in))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"error":"Could not read storage file: <ROOT>/p/x.jsonc and <ROOT>","<ROOT>/key":["compact-00000000-000001.ndjson",1,1.5,null,true],"n":7}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	// The input is not modified.
	if v, _ := in.Lookup("error"); v != "Could not read storage file: /tmp/r/p/x.jsonc and /tmp/r" {
		t.Fatal("input modified")
	}
}

func TestNewNormaliserTokens(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root+"/a/manifest.jsonc", `{"s":["compact-1234abcd-000001.ndjson"]}`)
	writeFile(t, root+"/a/segments/compact-1234abcd-000001.ndjson", "")
	writeFile(t, root+"/a/segments/compact-deadbeef-000001.ndjson", "")
	writeFile(t, root+"/b/segments/compact-0000aaaa-000001.ndjson", "") // no manifest at all
	n := newNormaliser(root)
	want := map[string]string{"1234abcd": "00000000", "deadbeef": "ffffffff", "0000aaaa": "ffffffff"}
	if len(n.tokens) != len(want) {
		t.Fatalf("tokens %v", n.tokens)
	}
	for k, v := range want {
		if n.tokens[k] != v {
			t.Errorf("token %s -> %s, want %s", k, n.tokens[k], v)
		}
	}
	if got := string(n.content("a/manifest.jsonc", []byte(`"compact-1234abcd-000001"`))); got != `"compact-00000000-000001"` {
		t.Fatalf("manifest content %s", got)
	}
	if got := string(n.content("a/segments/x.ndjson", []byte(`compact-1234abcd-`))); got != `compact-1234abcd-` {
		t.Fatal("only manifests are rewritten")
	}
}

func TestCompactionTokenAndQuarantineStem(t *testing.T) {
	toks := map[string]bool{"compact-1234abcd-000001.ndjson": true, "compact-1234ABCD-000001.ndjson": false,
		"compact-1234abc-000001.ndjson": false, "compact-1234abcd": false, "seg-000001.ndjson": false}
	for in, ok := range toks {
		if _, got := compactionToken(in); got != ok {
			t.Errorf("compactionToken(%q) ok=%v", in, got)
		}
	}
	stems := map[string]string{"x-0a1b2c3d.jsonc": "x", "-0a1b2c3d.jsonc": "", "x-0a1b2c3.jsonc": "!", "x.jsonc": "!", "x-0a1b2c3d.json": "!"}
	for in, want := range stems {
		stem, ok := quarantineStem(in)
		if (want == "!") == ok || (ok && stem != want) {
			t.Errorf("quarantineStem(%q) = %q, %v", in, stem, ok)
		}
	}
}

func TestDescribeDiffLongValues(t *testing.T) {
	a := make([]byte, 5000)
	b := make([]byte, 5000)
	for i := range a {
		a[i], b[i] = 'a', 'a'
	}
	b[4000] = 'b'
	d := describeDiff(a, b)
	if len(d) > 4500 || !strings.Contains(d, "first difference at byte 4000") || !strings.Contains(d, "(5000 bytes)") {
		t.Fatalf("diff report:\n%s", d)
	}
}
