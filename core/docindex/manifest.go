package docindex

import (
	"errors"
	"io/fs"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/core/phpjson"
)

// Definition is one manifest entry (docs/format/indexes.md §2). A field may be Unique and
// Range at once.
type Definition struct {
	Field  string
	Unique bool
	Range  bool
}

// ErrEmptyField is returned by Define for a name that is empty after
// trimming PHP whitespace; its text is PHP's.
var ErrEmptyField = errors.New("Index field cannot be empty.")

// phpTrimSet is the byte set PHP's trim() strips by default.
const phpTrimSet = " \t\n\r\x00\x0b"

// readManifest reads the definitions of manifestPath, sorted by field name.
// A missing file means no definitions (nil, nil). A file that cannot be read
// or decoded is an error (PHP throws from every operation needing them).
//
// Tolerance rules (7.1): fields must be an array; elements that are not an
// object with a string "field" are skipped; unique/range count only when
// they are the literal true; a later duplicate replaces an earlier one.
func readManifest(manifestPath string) ([]Definition, error) {
	content, err := fsutil.ReadFile(manifestPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &PHPError{Msg: "Could not read storage file: " + manifestPath, Err: err}
	}
	obj, err := decodeJSONCObject(content, manifestPath)
	if err != nil {
		return nil, err
	}
	byName := map[string]Definition{}
	if items, ok := lookupArray(obj, "fields"); ok {
		for _, item := range items.Values() {
			el, ok := item.(*phpjson.Array)
			if !ok {
				continue
			}
			name, ok := lookupString(el, "field")
			if !ok {
				continue
			}
			byName[name] = Definition{Field: name, Unique: isTrue(el, "unique"), Range: isTrue(el, "range")}
		}
	}
	return sortedDefinitions(byName), nil
}

// sortedDefinitions orders definitions bytewise by name (docs/format/indexes.md §2: PHP's
// ksort equals bytewise order except for numeric-looking names).
func sortedDefinitions(byName map[string]Definition) []Definition {
	defs := slices.Collect(maps.Values(byName))
	sort.Slice(defs, func(i, j int) bool { return defs[i].Field < defs[j].Field })
	return defs
}

// mergeDefinitions returns base plus add, flags OR-ed per field (PHP
// define_field), sorted by name.
func mergeDefinitions(base, add []Definition) []Definition {
	byName := make(map[string]Definition, len(base)+len(add))
	for _, d := range base {
		byName[d.Field] = d
	}
	for _, d := range add {
		old := byName[d.Field]
		byName[d.Field] = Definition{Field: d.Field, Unique: old.Unique || d.Unique, Range: old.Range || d.Range}
	}
	return sortedDefinitions(byName)
}

func checkFieldName(field string) error {
	if strings.Trim(field, phpTrimSet) == "" {
		return ErrEmptyField
	}
	return nil
}

// encodeManifest is Jsonc::encode_object({"fields": [...]}): PHP pretty
// print, each element {"field","unique","range"} in that order, then "\n".
func encodeManifest(defs []Definition) ([]byte, error) {
	list := phpjson.NewArray(len(defs))
	for _, d := range defs {
		el := phpjson.NewArray(3)
		el.SetString("field", d.Field)
		el.SetString("unique", d.Unique)
		el.SetString("range", d.Range)
		list.Append(el)
	}
	root := phpjson.NewArray(1)
	root.SetString("fields", list)
	return phpjson.EncodeJSONCObject(root)
}

func lookupArray(a *phpjson.Array, key string) (*phpjson.Array, bool) {
	v, ok := a.Lookup(key)
	if !ok {
		return nil, false
	}
	arr, ok := v.(*phpjson.Array)
	return arr, ok
}

func lookupString(a *phpjson.Array, key string) (string, bool) {
	v, ok := a.Lookup(key)
	if !ok {
		return "", false
	}
	s, ok := v.(string)
	return s, ok
}

func isTrue(a *phpjson.Array, key string) bool {
	v, _ := a.Lookup(key)
	b, ok := v.(bool)
	return ok && b
}
