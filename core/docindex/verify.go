package docindex

import (
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/core/phpjson"
)

// VerifyReport is the index part of PHP's verify()/health() (docs/format/indexes.md §12).
// The store builds {"ok": ..., "errors": ..., "stats": ...}: when stats
// show corrupt records it reports only "Corrupt records: <n>" and does not
// call Verify; otherwise errors = report.Errors (empty when there are no
// definitions) and ok = len(errors) == 0.
type VerifyReport struct {
	// Errors are PHP's messages in PHP's order: equality-file problems,
	// range-file problems, compound-file problems, then the mismatches
	// "Index mismatch (<equality|range|compound>): <identity>" with
	// identities sorted bytewise per label.
	Errors []string
	// Files is the number of entry files and range files examined.
	Files int
	// Mismatches is how many of Errors are "Index mismatch" lines.
	Mismatches int
	// Drift lists, per index, what Errors report about it: equality and
	// unique indexes, then range, then compound ones, in definition
	// order; indexes without problems are left out.
	Drift []Drift
}

// OK reports whether no problem was found.
func (r *VerifyReport) OK() bool { return len(r.Errors) == 0 }

// identities maps an index identity to a set of ids.
type identities map[string]idSet

func (s identities) add(identity string, ids ...string) {
	set := s[identity]
	if set == nil {
		set = idSet{}
		s[identity] = set
	}
	for _, id := range ids {
		set[id] = struct{}{}
	}
}

// Verify compares the index files with what the records of src say they
// should contain (docs/format/indexes.md §12). It takes no lock and writes nothing. An error
// is returned only when src fails or the manifest is unusable; index-file
// problems are reported in the VerifyReport.
//
// Identities: equality "f\0VK", range "f\0RK\0VK", compound "L\tR\0CK".
func (m *Manager) Verify(src RecordSource) (*VerifyReport, error) {
	defs, err := m.definitions()
	if err != nil {
		return nil, err
	}
	rep := &VerifyReport{Errors: []string{}}
	if len(defs) == 0 {
		return rep, nil
	}
	expected := map[string]identities{"equality": {}, "range": {}, "compound": {}}
	if src != nil {
		err := src(func(id string, data *phpjson.Array) error {
			expectRecord(defs, id, data, expected)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	tally := newDriftTally(defs)
	actual := map[string]identities{"equality": {}, "range": {}, "compound": {}}
	for _, d := range defs {
		if !d.Range {
			m.verifyEntryDir(rep, tally.equality(d.Field), m.paths.eqDir(d.Field), d.Field, true, actual["equality"])
		}
	}
	for _, d := range defs {
		if d.Range {
			dr := tally.by[IndexRef{Kind: KindRange, Field: d.Field}]
			m.verifyRangeFile(rep, dr, m.paths.rangeMain(d.Field), d.Field, actual["range"])
			m.verifyRangeFile(rep, dr, m.paths.rangeDelta(d.Field), d.Field, actual["range"])
		}
	}
	pairs := compoundPairs(defs)
	for _, p := range pairs {
		dr := tally.by[IndexRef{Kind: KindCompound, Field: p[0], Right: p[1]}]
		m.verifyEntryDir(rep, dr, m.paths.compoundDir(p[0], p[1]), p[0]+"\t"+p[1], false, actual["compound"])
	}
	for _, label := range []string{"equality", "range", "compound"} {
		for _, identity := range mismatchedIdentities(expected[label], actual[label]) {
			rep.Errors = append(rep.Errors, "Index mismatch ("+label+"): "+strings.ReplaceAll(identity, "\x00", " "))
			rep.Mismatches++
			if dr := tally.forIdentity(label, identity); dr != nil {
				dr.mismatch(expected[label][identity], actual[label][identity])
			}
		}
	}
	rep.Drift = tally.drifted()
	return rep, nil
}

// expectRecord adds the identities one record should have.
func expectRecord(defs []Definition, id string, data *phpjson.Array, expected map[string]identities) {
	var pairFields, pairVKs []string
	for _, d := range defs {
		v, ok := fieldValue(data, d.Field)
		if !ok {
			continue
		}
		vk := ValueKey(v)
		if d.Range {
			expected["range"].add(d.Field+"\x00"+RangeKey(v)+"\x00"+vk, id)
			continue
		}
		expected["equality"].add(d.Field+"\x00"+vk, id)
		if !d.Unique {
			pairFields = append(pairFields, d.Field)
			pairVKs = append(pairVKs, vk)
		}
	}
	for i := 0; i < len(pairFields)-1; i++ {
		for j := i + 1; j < len(pairFields); j++ {
			ck := compoundKeyOf(pairVKs[i], pairVKs[j])
			expected["compound"].add(pairFields[i]+"\t"+pairFields[j]+"\x00"+ck, id)
		}
	}
}

// compoundPairs lists every (L, R) pair of non-range non-unique
// definitions, L before R in definition order.
func compoundPairs(defs []Definition) [][2]string {
	var eq []string
	for _, d := range defs {
		if !d.Range && !d.Unique {
			eq = append(eq, d.Field)
		}
	}
	var pairs [][2]string
	for i := 0; i < len(eq)-1; i++ {
		for j := i + 1; j < len(eq); j++ {
			pairs = append(pairs, [2]string{eq[i], eq[j]})
		}
	}
	return pairs
}

// verifyEntryDir checks every *.jsonc (not starting with '.') of dir, in
// name order, and adds its ids under "<field from file>\0<key from file>".
// Each file problem is also counted in dr.Broken.
func (m *Manager) verifyEntryDir(rep *VerifyReport, dr *Drift, dir, wantField string, checkKey bool, actual identities) {
	problem := func(msg string) {
		rep.Errors = append(rep.Errors, msg)
		dr.Broken++
	}
	list, _ := fsutil.ReadDir(dir) // sorted by name; a missing dir has no files
	for _, de := range list {
		name := de.Name()
		if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".jsonc") {
			continue // PHP glob("*.jsonc") skips dot files
		}
		path := dir + "/" + name
		rep.Files++
		content, err := fsutil.ReadFile(path)
		var obj *phpjson.Array
		if err == nil {
			obj, err = decodeJSONCObject(content, path)
		} else {
			err = &PHPError{Msg: "Could not read storage file: " + path, Err: err}
		}
		if err != nil {
			problem("Unreadable index file: " + path + " (" + err.Error() + ")")
			continue
		}
		field, okField := lookupString(obj, "field")
		key, okKey := lookupString(obj, "key")
		if !okField || !okKey {
			problem("Malformed index file: " + path)
			continue
		}
		if field != wantField {
			problem("Index field mismatch: " + path)
		}
		value, _ := obj.Lookup("value")
		if checkKey && key != ValueKey(value) {
			problem("Index key mismatch: " + path)
		}
		ids := stringIDs(obj, "ids")
		if c, ok := obj.Lookup("count"); ok {
			if n, isInt := c.(int64); isInt && n != int64(len(ids)) {
				problem("Index count mismatch: " + path)
			}
		}
		actual.add(field+"\x00"+key, ids...)
	}
}

// verifyRangeFile applies every line of a main or delta file under
// "f\0key\0VK(value)". Each problem is also counted in dr.Broken.
func (m *Manager) verifyRangeFile(rep *VerifyReport, dr *Drift, path, field string, actual identities) {
	problem := func(msg string) {
		rep.Errors = append(rep.Errors, msg)
		dr.Broken++
	}
	if _, err := fsutil.Stat(path); err != nil && os.IsNotExist(err) {
		return
	}
	rep.Files++
	err := forEachLine(path, 0, func(line []byte) error {
		e, ok := decodeRangeLine(line)
		if !ok || !e.hasKey || !indexable(e.value) {
			problem("Malformed range index line: " + path)
			return nil
		}
		if e.key != RangeKey(e.value) {
			problem("Range index key mismatch: " + path)
			return nil
		}
		identity := field + "\x00" + e.key + "\x00" + ValueKey(e.value)
		actual.add(identity)
		actual[identity].apply(e)
		return nil
	})
	if err != nil {
		problem("Unreadable range index file: " + path)
	}
}

// mismatchedIdentities returns, sorted bytewise, the identities whose id
// sets differ between the two sides (a missing identity is an empty set).
func mismatchedIdentities(expected, actual identities) []string {
	all := maps.Clone(actual)
	maps.Copy(all, expected)
	var out []string
	for _, k := range slices.Sorted(maps.Keys(all)) {
		if !maps.Equal(expected[k], actual[k]) {
			out = append(out, k)
		}
	}
	return out
}
