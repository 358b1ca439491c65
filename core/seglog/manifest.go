package seglog

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/core/phpjson"
)

// manifest.jsonc (docs/format/segmentedlog.md §1.4): {"nextSegment":int,"sealed":[entry...],"active":entry}
// entry = {"file","index"(sealed only),"max","min","records","ordered"[,"compacted"]}.
// The decoded document is kept whole (doc) so that rewrites keep PHP's key
// order and any foreign members; the typed fields are views into it.
type manifest struct {
	doc         *phpjson.Array
	nextSegment int64          // 1 when not a JSON int
	sealedList  *phpjson.Array // nil when "sealed" is missing or not an array
	sealed      []*segEntry    // the object members of "sealed", in order
	active      *segEntry      // nil when "active" is missing or not an object
	withFile    []*segEntry    // segments(); rebuilt by listSegments when sealed/active change
}

// segEntry is one manifest segment entry.
type segEntry struct {
	obj      *phpjson.Array
	file     string
	hasFile  bool
	index    string
	hasIndex bool
	min, max string
	hasMin   bool // min and max are both strings (stats usable)
	ordered  bool // "ordered" === true
	records  int64
}

const (
	manifestName    = "manifest.jsonc"
	segmentsDirName = "segments"
	lockName        = "collection.lock"
	firstSegment    = "seg-000001.ndjson"
)

var segNameRE = regexp.MustCompile(`^seg-(\d+)\.ndjson$`)

// segmentNumber parses N of "seg-N.ndjson".
func segmentNumber(name string) (int64, bool) {
	m := segNameRE.FindStringSubmatch(name)
	if m == nil {
		return 0, false
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	return n, err == nil
}

// segmentName is seg-%06d.ndjson.
func segmentName(n int64) string { return fmt.Sprintf("seg-%06d.ndjson", n) }

// indexNameFor replaces a trailing ".ndjson" with ".idx.jsonc".
func indexNameFor(file string) string {
	if base, ok := strings.CutSuffix(file, ".ndjson"); ok {
		return base + ".idx.jsonc"
	}
	return file
}

// readManifest reads and parses dir/manifest.jsonc. A missing file gives an
// error satisfying errors.Is(err, os.ErrNotExist).
func readManifest(dir string) (*manifest, error) {
	path := dir + "/" + manifestName
	b, err := fsutil.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseManifest(b, path)
}

// invalidJSONCError is "Invalid JSONC storage file: <path>".
type invalidJSONCError struct {
	Path string
	Err  error
}

func (e *invalidJSONCError) Error() string { return "Invalid JSONC storage file: " + e.Path }
func (e *invalidJSONCError) Unwrap() error { return e.Err }

func parseManifest(b []byte, path string) (*manifest, error) {
	doc, err := phpjson.DecodeJSONCObject(b)
	if err != nil {
		var je *phpjson.JSONCError
		if errors.As(err, &je) {
			return nil, &invalidJSONCError{Path: path, Err: err}
		}
		return nil, err
	}
	return manifestFromDoc(doc), nil
}

func manifestFromDoc(doc *phpjson.Array) *manifest {
	m := &manifest{doc: doc, nextSegment: 1}
	if v, ok := doc.Lookup("nextSegment"); ok {
		if n, ok := v.(int64); ok {
			m.nextSegment = n
		}
	}
	if v, ok := doc.Lookup("sealed"); ok {
		if list, ok := v.(*phpjson.Array); ok {
			m.sealedList = list
			for _, e := range list.Values() {
				if obj, ok := e.(*phpjson.Array); ok {
					m.sealed = append(m.sealed, entryFromObj(obj))
				}
			}
		}
	}
	if v, ok := doc.Lookup("active"); ok {
		if obj, ok := v.(*phpjson.Array); ok {
			m.active = entryFromObj(obj)
		}
	}
	m.listSegments()
	return m
}

// listSegments (re)builds withFile from sealed and active.
func (m *manifest) listSegments() {
	m.withFile = make([]*segEntry, 0, len(m.sealed)+1)
	for _, e := range m.sealed {
		if e.hasFile {
			m.withFile = append(m.withFile, e)
		}
	}
	if m.active != nil && m.active.hasFile {
		m.withFile = append(m.withFile, m.active)
	}
}

func entryFromObj(obj *phpjson.Array) *segEntry {
	e := &segEntry{obj: obj}
	if v, ok := obj.Lookup("file"); ok {
		e.file, e.hasFile = v.(string)
	}
	if v, ok := obj.Lookup("index"); ok {
		e.index, e.hasIndex = v.(string)
	}
	minV, _ := obj.Lookup("min")
	maxV, _ := obj.Lookup("max")
	mn, ok1 := minV.(string)
	mx, ok2 := maxV.(string)
	if ok1 && ok2 {
		e.min, e.max, e.hasMin = mn, mx, true
	}
	if v, ok := obj.Lookup("ordered"); ok {
		e.ordered = v == true
	}
	if v, ok := obj.Lookup("records"); ok {
		e.records, _ = v.(int64)
	}
	return e
}

// activeFile is the file appends go to: active.file, or seg-000001.ndjson.
func (m *manifest) activeFile() string {
	if m.active != nil && m.active.hasFile {
		return m.active.file
	}
	return firstSegment
}

// segments lists the entries with a string file: sealed in order, then
// active. The slice is shared: callers must not modify it.
func (m *manifest) segments() []*segEntry { return m.withFile }

// entryCount is stats().segments: object entries of sealed, plus active.
func (m *manifest) entryCount() int {
	n := len(m.sealed)
	if m.active != nil {
		n++
	}
	return n
}

// referenced reports the file names the manifest refers to (files, their
// derived idx names and explicit index values).
func (m *manifest) referenced() map[string]bool {
	ref := map[string]bool{}
	add := func(e *segEntry) {
		if e.hasFile {
			ref[e.file] = true
			ref[indexNameFor(e.file)] = true
		}
		if e.hasIndex {
			ref[e.index] = true
		}
	}
	for _, e := range m.sealed {
		add(e)
	}
	if m.active != nil {
		add(m.active)
	}
	return ref
}

// setStats writes scan stats into an entry (keys keep their positions; new
// keys are appended in PHP's order max, min, records, ordered), in place.
func (e *segEntry) setStats(st *segStats) {
	if st == nil || st.records == 0 {
		e.obj.SetString("max", nil)
		e.obj.SetString("min", nil)
		e.obj.SetString("records", int64(0))
		e.obj.SetString("ordered", true)
		return
	}
	e.obj.SetString("max", st.max())
	e.obj.SetString("min", st.min())
	e.obj.SetString("records", st.records)
	e.obj.SetString("ordered", st.ordered)
}

// newActiveObj is a fresh active entry.
func newActiveObj(file string) *phpjson.Array {
	a := phpjson.NewArray(5)
	a.SetString("file", file)
	(&segEntry{obj: a}).setStats(nil)
	return a
}

// sealedObj is a sealed entry built from stats.
func sealedObj(file string, st *segStats, compacted bool) *phpjson.Array {
	a := phpjson.NewArray(7)
	a.SetString("file", file)
	a.SetString("index", indexNameFor(file))
	(&segEntry{obj: a}).setStats(st)
	if compacted {
		a.SetString("compacted", true)
	}
	return a
}

// initialManifestDoc is the manifest of a new collection.
func initialManifestDoc() *phpjson.Array {
	doc := phpjson.NewArray(3)
	doc.SetString("nextSegment", int64(2))
	doc.SetString("sealed", phpjson.NewArray(0))
	doc.SetString("active", newActiveObj(firstSegment))
	return doc
}

// writeManifestDoc atomically replaces dir/manifest.jsonc with doc.
func writeManifestDoc(dir string, doc *phpjson.Array) error {
	b, err := phpjson.EncodeCompactObject(doc)
	if err != nil {
		return err
	}
	return fsutil.WriteAtomic(dir+"/"+manifestName, b)
}
