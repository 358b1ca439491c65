package queue

// A minimal replay of the queue cases of the conformance corpus (README
// sections 2-7), used while core/conformance's harness is unfinished. It
// checks every result line byte for byte and the final tree by sha256.

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"storhfs/core/conformance"
	"storhfs/core/phpjson"
)

type caseTree struct {
	Dirs  []string `json:"dirs"`
	Files map[string]struct {
		Size   int64  `json:"size"`
		Sha256 string `json:"sha256"`
	} `json:"files"`
}

type caseMeta struct {
	Before   *caseTree `json:"before"`
	Expected caseTree  `json:"expected"`
}

func TestLocalReplay(t *testing.T) {
	corpus, ok := conformance.CorpusDir()
	if !ok {
		t.Skipf("conformance corpus not found at %s", corpus)
	}
	cases, err := os.ReadDir(filepath.Join(corpus, "queue"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no queue cases")
	}
	for _, c := range cases {
		t.Run(c.Name(), func(t *testing.T) {
			replayCase(t, filepath.Join(corpus, "queue", c.Name()))
		})
	}
}

func replayCase(t *testing.T, dir string) {
	var meta caseMeta
	raw, err := os.ReadFile(filepath.Join(dir, "case.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &meta); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if meta.Before != nil {
		for _, d := range meta.Before.Dirs {
			os.MkdirAll(filepath.Join(root, d), 0o777)
		}
		for p := range meta.Before.Files {
			b, err := os.ReadFile(filepath.Join(dir, "before", p))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(root, p), b, 0o666)
		}
	}
	ops := readLines(t, filepath.Join(dir, "ops.jsonl"))
	want := readLines(t, filepath.Join(dir, "results.jsonl"))
	exec := newQueueExecutor(root)
	defer exec.CloseAll()
	passed := 0
	for i, line := range ops {
		v, err := phpjson.DecodeDepth([]byte(line), 0)
		if err != nil {
			t.Fatalf("op %d: %v", i, err)
		}
		op := v.(*phpjson.Array)
		res, err := runLocalOp(root, exec, op)
		var out phpjson.Value = res
		if err != nil {
			e := phpjson.NewArray(1)
			e.SetString("error", strings.ReplaceAll(err.Error(), root, "<ROOT>"))
			out = e
		}
		got, encErr := phpjson.Encode(out)
		if encErr != nil {
			t.Errorf("op %d: encode result: %v", i, encErr)
			continue
		}
		if string(got) != want[i] {
			t.Errorf("op %d %s:\n got %s\nwant %s", i, line, got, want[i])
			continue
		}
		passed++
	}
	t.Logf("%d/%d ops match", passed, len(ops))
	compareTree(t, root, meta.Expected)
}

func runLocalOp(root string, exec conformance.Executor, op *phpjson.Array) (phpjson.Value, error) {
	path := filepath.Join(root, str(op, "path"))
	data := []byte(str(op, "text"))
	if b64, ok := member(op, "base64").(string); ok {
		data, _ = base64.StdEncoding.DecodeString(b64)
	}
	switch str(op, "op") {
	case "fs_write":
		os.MkdirAll(filepath.Dir(path), 0o777)
		return nil, os.WriteFile(path, data, 0o666)
	case "fs_append":
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		_, err = f.Write(data)
		return nil, err
	case "fs_delete":
		return nil, os.Remove(path)
	case "fs_list":
		out := phpjson.NewArray(0)
		var entries []string
		filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
			if err != nil || p == path {
				return nil
			}
			entries = append(entries, p)
			return nil
		})
		sort.Strings(entries)
		for _, p := range entries {
			rel, _ := filepath.Rel(path, p)
			e := phpjson.NewArray(3)
			fi, _ := os.Stat(p)
			if fi.IsDir() {
				e.SetString("path", rel+"/")
				e.SetString("type", "dir")
			} else {
				e.SetString("path", rel)
				e.SetString("type", "file")
				e.SetString("size", fi.Size())
			}
			out.Append(e)
		}
		return out, nil
	}
	return exec.Exec(op, &conformance.Env{Root: root})
}

func compareTree(t *testing.T, root string, want caseTree) {
	got := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			sum := sha256.Sum256(b)
			rel, _ := filepath.Rel(root, p)
			got[rel] = hex.EncodeToString(sum[:])
		}
		return nil
	})
	if len(got) != len(want.Files) {
		t.Errorf("tree: %d files, want %d (%v)", len(got), len(want.Files), got)
	}
	for p, f := range want.Files {
		if got[p] != f.Sha256 {
			t.Errorf("tree: %s sha256 %s, want %s", p, got[p], f.Sha256)
		}
	}
}

func readLines(t *testing.T, path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}
