package conformance

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/storhfs/storhfs/core/phpjson"
)

// fakeExec is a tiny doc-like engine: open/close manage a writer marker,
// echo returns op.value, fail throws op.message ("{ROOT}" = the storage
// root), boom panics, mkfile writes op.path.
type fakeExec struct {
	root    string
	markers map[string]string // collection -> marker path
}

func newFakeExec(root string) Executor { return &fakeExec{root: root, markers: map[string]string{}} }

func (f *fakeExec) Exec(op *phpjson.Array, env *Env) (phpjson.Value, error) {
	if env.Root != f.root || env.T == nil {
		return nil, errors.New("bad env")
	}
	name, _ := stringMember(op, "op")
	coll, _ := stringMember(op, "collection")
	switch name {
	case "open":
		dir := f.root + "/" + coll + "/.storh/writers"
		if err := os.MkdirAll(dir, 0o777); err != nil {
			return nil, err
		}
		marker := dir + "/" + strconv.Itoa(os.Getpid()) + ".0badf00d"
		f.markers[coll] = marker
		return nil, os.WriteFile(marker, nil, 0o666)
	case "close":
		os.Remove(f.markers[coll])
		delete(f.markers, coll)
		return nil, nil
	case "echo":
		v, _ := op.Lookup("value")
		return v, nil
	case "fail":
		msg, _ := stringMember(op, "message")
		return nil, errors.New(strings.ReplaceAll(msg, "{ROOT}", f.root))
	case "boom":
		panic("boom in Exec")
	case "mkfile":
		p, _ := stringMember(op, "path")
		return nil, os.WriteFile(f.root+"/"+p, []byte("x"), 0o666)
	}
	return nil, fmt.Errorf("fake: unknown op %q", name)
}

// CloseAll leaves a trace on stdout so the failure-mode tests can see it ran.
func (f *fakeExec) CloseAll() {
	for coll, m := range f.markers {
		os.Remove(m)
		delete(f.markers, coll)
	}
	fmt.Println("FAKE CLOSEALL RAN")
}

// synthCase describes one synthetic corpus case.
type synthCase struct {
	name          string
	opsAndResults []string // alternating op line, result line
	beforeDirs    []string
	beforeFiles   map[string]string
	mtimes        map[string]int64
	expectedDirs  []string
	expectedFiles map[string]string
}

func listing(dirs []string, files map[string]string) map[string]any {
	fm := map[string]any{}
	for p, content := range files {
		sum := sha256.Sum256([]byte(content))
		fm[p] = map[string]any{"size": len(content), "sha256": hex.EncodeToString(sum[:])}
	}
	if dirs == nil {
		dirs = []string{}
	}
	return map[string]any{"dirs": dirs, "files": fm}
}

// writeCorpus writes <dir>/<engine>/<case>/ for every case.
func writeCorpus(t *testing.T, dir, engine string, cases []synthCase) {
	t.Helper()
	for _, c := range cases {
		cd := filepath.Join(dir, engine, c.name)
		var ops, results []string
		for i := 0; i < len(c.opsAndResults); i += 2 {
			ops = append(ops, c.opsAndResults[i])
			results = append(results, c.opsAndResults[i+1])
		}
		meta := map[string]any{
			"format": 1, "engine": engine, "case": c.name, "ops": len(ops),
			"before": nil, "expected": listing(c.expectedDirs, c.expectedFiles), "normalisations": []string{},
		}
		if c.beforeFiles != nil || c.beforeDirs != nil {
			b := listing(c.beforeDirs, c.beforeFiles)
			b["mtimes"] = c.mtimes
			meta["before"] = b
			for p, content := range c.beforeFiles {
				writeFile(t, filepath.Join(cd, "before", p), content)
			}
		}
		for p, content := range c.expectedFiles {
			writeFile(t, filepath.Join(cd, "expected", p), content)
		}
		raw, _ := json.MarshalIndent(meta, "", "    ")
		writeFile(t, filepath.Join(cd, "case.json"), string(raw))
		writeFile(t, filepath.Join(cd, "ops.jsonl"), strings.Join(ops, "\n")+"\n")
		writeFile(t, filepath.Join(cd, "results.jsonl"), strings.Join(results, "\n")+"\n")
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o666); err != nil {
		t.Fatal(err)
	}
}

const (
	recID       = "018faf47-e2b8-76d6-9968-abdf939df0d3"
	manifestTxt = `{"segments":[{"file":"compact-1234abcd-000001.ndjson"}]}` + "\n"
)

// passingCase exercises every harness feature and must pass.
func passingCase() synthCase {
	old := int64(1600000000)
	return synthCase{
		name: "all-features",
		beforeDirs: []string{"pages", "pages/.storh", "pages/.storh/writers", "pages/data", "pages/data/ab",
			"pages/empty"},
		beforeFiles: map[string]string{
			"pages/data/ab/" + recID + ".jsonc": `{"id":"` + recID + `","data":[]}` + "\n",
			"pages/data/ab/.old.tmp":            "old",
			"pages/.storh/writers/not-a-pid":    "",
		},
		mtimes: map[string]int64{"pages/data/ab/.old.tmp": old},
		opsAndResults: []string{
			`{"op":"mkfile","path":"probe-mtime","note":"a file the engine creates is part of the final tree"}`, `null`,
			`{"op":"open","collection":"pages"}`, `null`,
			`{"op":"echo","collection":"pages","value":{"id":"` + recID + `","data":{"a":1.0,"b":[],"u":"é/\u2028"}}}`,
			`{"id":"` + recID + `","data":{"a":1.0,"b":[],"u":"é/\u2028"}}`,
			`{"op":"fail","collection":"pages","message":"Invalid JSONC storage file: {ROOT}/pages/data/ab/x.jsonc"}`,
			`{"error":"Invalid JSONC storage file: <ROOT>/pages/data/ab/x.jsonc"}`,
			`{"op":"echo","collection":"pages","value":{"{ROOT}":"key kept verbatim"}}`,
			`{"{ROOT}":"key kept verbatim"}`,
			`{"op":"fs_list","path":"pages/.storh","note":"own marker hidden"}`,
			`[{"path":"writers/","type":"dir"},{"path":"writers/not-a-pid","type":"file","size":0}]`,
			`{"op":"fs_write","path":"events/manifest.jsonc","text":` + strconv.Quote(manifestTxt) + `}`, `null`,
			`{"op":"fs_write","path":"events/segments/compact-1234abcd-000001.ndjson","base64":"eHl6"}`, `null`,
			`{"op":"fs_write","path":"events/segments/compact-deadbeef-000001.ndjson","text":"old"}`, `null`,
			`{"op":"fs_append","path":"events/segments/compact-deadbeef-000001.ndjson","text":"er"}`, `null`,
			`{"op":"fs_write","path":"pages/.storh/corrupt/` + recID + `-0a1b2c3d.jsonc","text":"bad"}`, `null`,
			`{"op":"fs_write","path":"pages/.storh/corrupt/` + recID + `.jsonc","text":"bad"}`, `null`,
			`{"op":"fs_list","path":"events"}`,
			`[{"path":"manifest.jsonc","type":"file","size":57},{"path":"segments/","type":"dir"},` +
				`{"path":"segments/compact-00000000-000001.ndjson","type":"file","size":3},` +
				`{"path":"segments/compact-ffffffff-000001.ndjson","type":"file","size":5}]`,
			`{"op":"fs_list","path":"pages/.storh/corrupt/"}`,
			`[{"path":"` + recID + `-00000000.jsonc","type":"file","size":3},{"path":"` + recID + `.jsonc","type":"file","size":3}]`,
			`{"op":"echo","collection":"events","value":"seg compact-1234abcd-000001.ndjson and compact-deadbeef-000001"}`,
			`"seg compact-00000000-000001.ndjson and compact-ffffffff-000001"`,
			`{"op":"fs_list","path":"missing/dir"}`, `[]`,
			`{"op":"echo","collection":"pages","value":[1]}`, `[1]`,
			`{"op":"echo","collection":"pages","value":[1],"quirk":"index-path","compare_with":16}`, `[2]`,
			`{"op":"echo","collection":"pages","value":[3],"quirk":"unique-null"}`, `[4]`,
			`{"op":"fs_delete","path":"events/segments/compact-deadbeef-000001.ndjson"}`, `null`,
			`{"op":"fs_delete","path":"never/existed"}`, `null`,
			`{"op":"close","collection":"pages"}`, `null`,
		},
		expectedDirs: []string{"events", "events/segments", "pages", "pages/.storh", "pages/.storh/corrupt",
			"pages/.storh/writers", "pages/data", "pages/data/ab", "pages/empty"},
		expectedFiles: map[string]string{
			"probe-mtime":           "x",
			"events/manifest.jsonc": strings.ReplaceAll(manifestTxt, "1234abcd", "00000000"),
			"events/segments/compact-00000000-000001.ndjson":    "xyz",
			"pages/.storh/corrupt/" + recID + "-00000000.jsonc": "bad",
			"pages/.storh/corrupt/" + recID + ".jsonc":          "bad",
			"pages/.storh/writers/not-a-pid":                    "",
			"pages/data/ab/" + recID + ".jsonc":                 `{"id":"` + recID + `","data":[]}` + "\n",
			"pages/data/ab/.old.tmp":                            "old",
		},
	}
}

func TestRunPassesOnFakeEngine(t *testing.T) {
	corpus := t.TempDir()
	writeCorpus(t, corpus, "fake", []synthCase{passingCase()})
	t.Setenv("STORH_CONFORMANCE_DIR", corpus)
	var roots []string
	Run(t, "fake", func(root string) Executor {
		roots = append(roots, root)
		return newFakeExec(root)
	}, Options{AllowQuirks: []string{"index-path", "unique-null"}})
	if len(roots) != 1 {
		t.Fatalf("executor created %d times", len(roots))
	}
}

func TestBeforeTreeMtimes(t *testing.T) {
	corpus := t.TempDir()
	c := passingCase()
	writeCorpus(t, corpus, "fake", []synthCase{c})
	spec, err := loadCase(filepath.Join(corpus, "fake", c.name))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if err := buildBefore(spec, root); err != nil {
		t.Fatal(err)
	}
	for _, d := range c.beforeDirs {
		if fi, err := os.Stat(root + "/" + d); err != nil || !fi.IsDir() {
			t.Fatalf("dir %s not created", d)
		}
	}
	old, _ := os.Stat(root + "/pages/data/ab/.old.tmp")
	fresh, _ := os.Stat(root + "/pages/data/ab/" + recID + ".jsonc")
	if old.ModTime().Unix() != 1600000000 {
		t.Fatalf("mtime not applied: %v", old.ModTime())
	}
	if time.Since(fresh.ModTime()) > time.Minute {
		t.Fatalf("unlisted file must have a fresh mtime: %v", fresh.ModTime())
	}
	// A before/ file whose bytes differ from case.json is a corpus error.
	os.WriteFile(filepath.Join(spec.Dir, "before/pages/data/ab/.old.tmp"), []byte("changed"), 0o666)
	if err := buildBefore(spec, t.TempDir()); err == nil {
		t.Fatal("want sha256 error")
	}
}

func TestRunSkipsWithoutCorpus(t *testing.T) {
	t.Setenv("CI", "") // in CI a missing corpus fails instead (internal/corpus)
	t.Setenv("STORH_CONFORMANCE_DIR", filepath.Join(t.TempDir(), "nope"))
	ran := false
	t.Run("inner", func(t *testing.T) {
		defer func() { ran = true }()
		Run(t, "fake", newFakeExec, Options{})
		t.Error("Run must skip when the corpus is missing")
	})
	if !ran {
		t.Fatal("inner test did not run")
	}
}
