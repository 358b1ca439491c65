package docstore

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/storhfs/storhfs/core/docindex"
	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/internal/treetest"
)

// writers are the callers of writeLocked, each storing {"kind": kind,
// "score": score} (score as JSON text) under id1 and returning its error.
var writers = []struct {
	name  string
	write func(s *Store, kind, score string) error
}{
	{"Put", func(s *Store, kind, score string) error {
		_, err := s.Put(scoreData(kind, score), id1)
		return err
	}},
	{"PutMany", func(s *Store, kind, score string) error {
		_, err := s.PutMany([]phpjson.Value{obj("id", id1, "data", scoreData(kind, score))})
		return err
	}},
	{"ImportJSONL form A", func(s *Store, kind, score string) error {
		return importLines(s, `{"id":"`+id1+`","data":{"kind":"`+kind+`","score":`+score+`}}`)
	}},
	{"ImportJSONL form B", func(s *Store, kind, score string) error {
		return importLines(s, `{"id":"`+id1+`","kind":"`+kind+`","score":`+score+`}`)
	}},
	{"PutRaw", func(s *Store, kind, score string) error {
		return s.PutRaw(id1, []byte(`{"id":"`+id1+`","data":{"kind":"`+kind+`","score":`+score+`}}`))
	}},
}

func scoreData(kind, score string) *phpjson.Array {
	v, err := phpjson.Decode([]byte(score))
	if err != nil {
		panic(err)
	}
	return obj("kind", kind, "score", v)
}

// importLines imports lines and fails unless n counts exactly the lines
// stored without error.
func importLines(s *Store, lines string) error {
	n, err := s.ImportJSONLFrom(strings.NewReader(lines + "\n"))
	if err != nil && n != 0 {
		return errors.New("a failed one-line import counted its line")
	}
	return err
}

// Every writer reports a failed index update after the record file was
// stored as ErrIndexDrift; before, only PutRaw did, and Put, PutMany and
// ImportJSONL returned the bare cause. The engine API keeps the cause's
// text (PHP's); the mount's text says the record is stored.
func TestEveryWriterReportsIndexDrift(t *testing.T) {
	for _, w := range writers {
		t.Run(w.name, func(t *testing.T) {
			root := t.TempDir()
			s := openStore(t, root)
			if err := s.SyncIndexes([]docindex.Definition{{Field: "kind"}}, true); err != nil {
				t.Fatal(err)
			}
			// An entry path that is a directory makes the equality update fail.
			eq := root + "/pages/.storh/indexes/entries/eq/" + docindex.FieldKey("kind")
			if err := os.MkdirAll(eq+"/"+docindex.ValueKey("a")+".jsonc/x", 0o777); err != nil {
				t.Fatal(err)
			}
			err := w.write(s, "a", "1")
			if !errors.Is(err, ErrIndexDrift) || errors.Is(err, ErrInvalidRecord) {
				t.Fatalf("failed index update = %v, want ErrIndexDrift", err)
			}
			if mount := w.name == "PutRaw"; strings.Contains(err.Error(), "record stored") != mount {
				t.Errorf("drift text %q: the mount's names the stored record, the engine's is the cause's", err)
			}
			if _, err := s.StatRecord(id1); err != nil {
				t.Fatalf("record not stored: %v", err)
			}
		})
	}
}

// 1e999 decodes to INF, which no index file can hold. What each writer
// does with it in a range-indexed field follows PHP where PHP defines it
// (testdata/conformance-extra/doc/import-inf-range): a put or a form-B row
// fails encoding the record before writing; a form-A line is stored
// verbatim and then fails the index update (drift, n=0). The mount
// refuses it before writing (recordWrite.refuseUnindexable).
func TestUnindexableValueByWriter(t *testing.T) {
	for _, w := range writers {
		t.Run(w.name, func(t *testing.T) {
			root := t.TempDir()
			s := openStore(t, root)
			if err := s.SyncIndexes([]docindex.Definition{{Field: "score", Range: true}}, true); err != nil {
				t.Fatal(err)
			}
			before := treetest.Snapshot(t, root)
			err := w.write(s, "a", "1e999")
			_, statErr := s.StatRecord(id1)
			switch w.name {
			case "ImportJSONL form A":
				if !errors.Is(err, ErrIndexDrift) || err.Error() != phpjson.ErrInfNaN.Error() || statErr != nil {
					t.Fatalf("error %v, record stat %v: want PHP's drift, the line stored", err, statErr)
				}
				return
			case "PutRaw":
				if !errors.Is(err, ErrInvalidRecord) {
					t.Fatalf("error %v, want ErrInvalidRecord", err)
				}
			default:
				if err == nil || err.Error() != phpjson.ErrInfNaN.Error() || errors.Is(err, ErrIndexDrift) {
					t.Fatalf("error %v, want PHP's encoding failure", err)
				}
			}
			if !errors.Is(statErr, fs.ErrNotExist) {
				t.Errorf("record stored: %v", statErr)
			}
			treetest.AssertSame(t, "the refused write", before, treetest.Snapshot(t, root))
		})
	}
	if !math.IsInf(mustDecodeFloat(t, "1e999"), 1) {
		t.Fatal("1e999 no longer decodes to INF: this test tests nothing")
	}
}

func mustDecodeFloat(t *testing.T, text string) float64 {
	t.Helper()
	v, err := phpjson.Decode([]byte(text))
	f, ok := v.(float64)
	if err != nil || !ok {
		t.Fatalf("decode %s: %v %v", text, v, err)
	}
	return f
}
