package seglog

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/storhfs/storhfs/core/phpjson"
)

// An append stream that fails after a roll keeps the roll: the sealed
// segment is in the manifest, its records are durable, and the lines
// buffered after the roll are not written.
func TestAppendStreamErrorAfterRoll(t *testing.T) {
	root := t.TempDir()
	l := openTest(t, root, 400)
	defer l.Close()
	dir := root + "/events"
	boom := errors.New("boom")
	line := AppendLine(nil, []byte(putPrefix+testID(1)+dataInfix+`{"n":1,"pad":"`+strings.Repeat("p", 40)+`"}}`))
	sealed := (400 + len(line) - 1) / len(line) // lines until the first roll
	n := 0
	_, err := l.AppendStream(func() (phpjson.Value, bool, error) {
		if n == sealed+1 {
			return nil, false, boom // one line buffered after the roll
		}
		n++
		r := phpjson.NewArray(2)
		r.SetString("id", testID(n))
		r.SetString("data", dataN(n))
		return r, true, nil
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	m, err := readManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.sealed) != 1 || m.sealed[0].file != firstSegment {
		t.Fatalf("sealed after the failed stream: %+v", m.sealed)
	}
	if fi, err := os.Stat(dir + "/segments/" + m.activeFile()); err != nil || fi.Size() != 0 {
		t.Fatalf("new active segment: %v %v", fi, err)
	}
	l2 := openTest(t, root, 400)
	defer l2.Close()
	if l2.state.live != sealed {
		t.Fatalf("%d live records after reopen, want %d", l2.state.live, sealed)
	}
}
