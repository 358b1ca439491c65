package docindex

import (
	"bytes"
	"strings"

	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/core/phpjson"
)

// readEntry reads an equality or compound entry file for maintenance (7.8):
// its decoded object and its string ids (PHP ids_from_value_entry). A
// missing file gives (nil, nil, nil); an undecodable one is an error.
//
// Entry files can hold many thousands of ids, rewritten on every put. When
// the file ends in the canonical id list (splitCanonicalIDs), the ids are
// taken from the text and only the small rest is JSON-decoded; the result
// is the one a full decode gives. Anything else is fully decoded.
func readEntry(path string) (*phpjson.Array, []string, error) {
	content, err := fsutil.ReadFile(path)
	if err != nil && absent(path, err) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, &PHPError{Msg: "Could not read storage file: " + path, Err: err}
	}
	if head, ids, ok := splitCanonicalIDs(content); ok {
		if obj, err := phpjson.DecodeJSONCObject(head); err == nil {
			return obj, ids, nil
		}
	}
	obj, err := decodeJSONCObject(content, path)
	if err != nil {
		return nil, nil, err
	}
	return obj, stringIDs(obj, "ids"), nil
}

// splitCanonicalIDs splits content = H + `,"ids":[` + L + "]}\n" into
// head = H + "}" and the ids of L, when L is empty or `"<id>","<id>"...`
// with every id plain (plainJSON: no quote, backslash, control or
// non-ASCII byte) and H ends with the last byte of a JSON value.
//
// Why a successful decode of head then equals the full decode with
// "ids" = L: if head is a valid object, the first `,"ids":[` is at the top
// level of the object (inside a string its quote would be escaped; inside
// a nested value or a comment, head would not close); H's last byte rules
// out a trailing comma or comment that head would accept but content not;
// and L is then a valid list of exactly these strings, the last "ids"
// member, which wins in PHP as in phpjson.
func splitCanonicalIDs(content []byte) (head []byte, ids []string, ok bool) {
	const open, closing = `,"ids":[`, "]}\n"
	if !bytes.HasSuffix(content, []byte(closing)) {
		return nil, nil, false
	}
	i := bytes.Index(content, []byte(open))
	if i < 1 || i+len(open) > len(content)-len(closing) ||
		!strings.ContainsRune(`"0123456789el]}`, rune(content[i-1])) {
		return nil, nil, false
	}
	list := content[i+len(open) : len(content)-len(closing)]
	if len(list) > 0 {
		if len(list) < 2 || list[0] != '"' || list[len(list)-1] != '"' {
			return nil, nil, false
		}
		ids = strings.Split(string(list[1:len(list)-1]), `","`)
		for _, id := range ids {
			if !phpjson.PlainString(id) {
				return nil, nil, false
			}
		}
	}
	head = append(content[:i:i], '}') // copies: cap is i
	return head, ids, true
}
