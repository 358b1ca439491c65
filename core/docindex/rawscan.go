package docindex

import (
	"bytes"
	"os"
	"strings"
)

// rawEntryIDs reads the ids of an equality or compound entry file the way
// PHP's query and unique-check paths do (7.4, ids_from_value_file): find
// the literal "key":"<key>", then the first ,"ids":[ after it, take the text
// up to the next ] and split it on "," without any JSON unescaping.
//
// A missing file has no ids. A missing key literal means no ids. A missing
// ids marker or ] or an id list not delimited by quotes is
// "Malformed equality index: <path>".
func rawEntryIDs(path, key string) ([]string, error) {
	content, err := os.ReadFile(path)
	if err != nil && absent(path, err) {
		return nil, nil
	}
	if err != nil {
		return nil, errReadEquality(path, err)
	}
	keyMarker := `"key":"` + key + `"`
	at := bytes.Index(content, []byte(keyMarker))
	if at < 0 {
		return nil, nil
	}
	rest := content[at+len(keyMarker):]
	const idsMarker = `,"ids":[`
	i := bytes.Index(rest, []byte(idsMarker))
	if i < 0 {
		return nil, errMalformedEquality(path)
	}
	list := rest[i+len(idsMarker):]
	end := bytes.IndexByte(list, ']')
	if end < 0 {
		return nil, errMalformedEquality(path)
	}
	if end == 0 {
		return []string{}, nil
	}
	if list[0] != '"' || list[end-1] != '"' || end < 2 {
		return nil, errMalformedEquality(path)
	}
	return strings.Split(string(list[1:end-1]), `","`), nil
}

// rawEntryCount is PHP count_ids_from_value_file: the stored decimal count
// after the first ,"count": that follows the key literal (no sign). A
// missing file or key literal counts 0.
func rawEntryCount(path, key string) (int64, error) {
	content, err := os.ReadFile(path)
	if err != nil && absent(path, err) {
		return 0, nil
	}
	if err != nil {
		return 0, errReadEquality(path, err)
	}
	keyMarker := `"key":"` + key + `"`
	at := bytes.Index(content, []byte(keyMarker))
	if at < 0 {
		return 0, nil
	}
	rest := content[at+len(keyMarker):]
	const countMarker = `,"count":`
	i := bytes.Index(rest, []byte(countMarker))
	if i < 0 {
		return 0, errMalformedEquality(path)
	}
	digits := rest[i+len(countMarker):]
	var n int64
	j := 0
	for ; j < len(digits) && digits[j] >= '0' && digits[j] <= '9'; j++ {
		if n > (1<<63-1-9)/10 {
			n = 1<<63 - 1 // PHP (int) of an overflowing digit string saturates
			continue
		}
		n = n*10 + int64(digits[j]-'0')
	}
	if j == 0 {
		return 0, errMalformedEquality(path)
	}
	return n, nil
}
