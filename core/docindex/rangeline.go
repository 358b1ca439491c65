package docindex

import (
	"bytes"
	"strconv"

	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/core/phpjson"
)

// Range lines (7.7), key order key, value, count, ids, remove:
//
//	{"key":"<RK>","value":<J(v)>,"count":1,"ids":["<id>"],"remove":[]}\n     add
//	{"key":"<RK>","value":<J(v)>,"count":-1,"ids":[],"remove":["<id>"]}\n    remove
//
// Main files hold add lines only (count = number of ids, always 1 there).

// encodeRangeLine returns one canonical range line for v.
func encodeRangeLine(rk string, v phpjson.Value, ids, remove []string) ([]byte, error) {
	return appendRangeLine(make([]byte, 0, 96+len(rk)), rk, v, ids, remove)
}

// appendRangeLine appends one canonical range line for v to buf.
func appendRangeLine(buf []byte, rk string, v phpjson.Value, ids, remove []string) ([]byte, error) {
	buf = append(buf, `{"key":`...)
	buf, err := phpjson.AppendString(buf, rk)
	if err != nil {
		return nil, err
	}
	buf = append(buf, `,"value":`...)
	if buf, err = phpjson.AppendEncode(buf, v); err != nil {
		return nil, err
	}
	buf = append(buf, `,"count":`...)
	buf = strconv.AppendInt(buf, int64(len(ids)-len(remove)), 10)
	buf = append(buf, `,"ids":`...)
	if buf, err = appendStringList(buf, ids); err != nil {
		return nil, err
	}
	buf = append(buf, `,"remove":`...)
	if buf, err = appendStringList(buf, remove); err != nil {
		return nil, err
	}
	return append(buf, '}', '\n'), nil
}

// appendDelta appends an add (add=true) or remove line for id with value v
// to the field's delta file (4.3: O_APPEND, one write, fsync).
func (m *Manager) appendDelta(field string, v phpjson.Value, id string, add bool) error {
	var line []byte
	var err error
	if add {
		line, err = encodeRangeLine(RangeKey(v), v, []string{id}, []string{})
	} else {
		line, err = encodeRangeLine(RangeKey(v), v, []string{}, []string{id})
	}
	if err != nil {
		return err
	}
	path := m.paths.rangeDelta(field)
	if err := fsutil.AppendDurable(path, line); err != nil {
		return &PHPError{Msg: "Could not write range index: " + path, Err: err}
	}
	return nil
}

// rangeLineKey returns the key of a range line from its text, as PHP's
// range_line_key: only when the line starts with {"key":" and has a closing
// quote.
func rangeLineKey(line []byte) (string, bool) {
	const prefix = `{"key":"`
	if !bytes.HasPrefix(line, []byte(prefix)) {
		return "", false
	}
	rest := line[len(prefix):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return "", false
	}
	return string(rest[:end]), true
}

// rangeEntry is a decoded range line.
type rangeEntry struct {
	key    string
	hasKey bool // key member present and a string
	value  phpjson.Value
	ids    []string
	remove []string
}

// decodeRangeLine is PHP decode_index_line: JSON-decode the trimmed line;
// anything that is not a non-empty object (torn, undecodable, a list, {})
// is absent (ok false).
func decodeRangeLine(line []byte) (rangeEntry, bool) {
	obj, ok := decodeLineObject(line)
	if !ok {
		return rangeEntry{}, false
	}
	var e rangeEntry
	e.key, e.hasKey = lookupString(obj, "key")
	e.value, _ = obj.Lookup("value")
	e.ids = stringIDs(obj, "ids")
	e.remove = stringIDs(obj, "remove")
	return e, true
}
