package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/storhfs/storhfs/core/docstore"
	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/queue"
	"github.com/storhfs/storhfs/core/seglog"
	"github.com/storhfs/storhfs/core/uuidv7"
)

// What the record, log and queue commands (recget.go, query.go, logcmd.go,
// queuecmd.go) share: which engine a collection is, and JSON arguments.

// engineKind is the engine whose files a collection directory holds.
type engineKind int

const (
	kindNone engineKind = iota // no collection (missing, or no engine's files)
	kindDoc
	kindLog
	kindQueue
)

func (k engineKind) String() string {
	switch k {
	case kindDoc:
		return "DocStore"
	case kindLog:
		return "SegmentedLog"
	case kindQueue:
		return "Queue"
	}
	return "no collection"
}

// kindOf tells which engine's collection ROOT/COLLECTION is. It creates
// nothing and follows no symlink below root.
func kindOf(root, collection string) engineKind {
	dir := docstore.CollectionDir(root, collection)
	switch {
	case seglog.IsCollection(dir):
		return kindLog
	case queue.IsCollection(dir):
		return kindQueue
	case docstore.IsCollection(dir):
		return kindDoc
	}
	return kindNone
}

// requireKind fails unless ROOT/COLLECTION is a collection of engine want.
// A missing collection is an error unless create is set (the engine's
// open then creates it, as PHP's constructor does). Messages name the
// directory and the command.
func requireKind(command, root, collection string, want engineKind, create bool) error {
	dir := docstore.CollectionDir(root, collection)
	switch got := kindOf(root, collection); {
	case got == want:
		return nil
	case got != kindNone:
		return fmt.Errorf("%s is a %s collection, not a %s: storhfs %s works on %s collections only", dir, got, want, command, want)
	case create:
		return nil
	}
	if err := symlinkRefusal(dir); err != nil {
		return err
	}
	return fmt.Errorf("Collection does not exist: %s", dir)
}

// checkedJSON decodes text as storh's JSON (PHP json_decode), requires a
// PHP array (an object or a list) and runs check on it. what names the
// argument or line in the error ("argument 3", "stdin line 2"), with the
// start of the text.
func checkedJSON(what string, text []byte, check func(*phpjson.Array) error) (*phpjson.Array, error) {
	what = fmt.Sprintf("%s %s", what, excerpt(text))
	v, err := phpjson.Decode(text)
	if err != nil {
		return nil, fmt.Errorf("%s: invalid JSON: %w", what, err)
	}
	arr, ok := v.(*phpjson.Array)
	if !ok || arr == nil {
		return nil, fmt.Errorf("%s: want a JSON object or array", what)
	}
	if check != nil {
		if err := check(arr); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
	}
	return arr, nil
}

// excerpt is text, trimmed and quoted, cut after 40 bytes.
func excerpt(text []byte) string {
	text = bytes.TrimSpace(text)
	if len(text) > 40 {
		return fmt.Sprintf("%q...", text[:40])
	}
	return fmt.Sprintf("%q", text)
}

// jsonInputs returns the records or payloads a command is given: each of
// args as one JSON document (errors are usage errors naming the argument,
// counted from firstArg), or, with no args, every non-blank line of stdin
// (errors name the line). Each must be a JSON object or array that check
// (nil: any) accepts; nothing is returned unless every input is valid.
func jsonInputs(args []string, firstArg int, stdin io.Reader, check func(*phpjson.Array) error) ([]*phpjson.Array, error) {
	var out []*phpjson.Array
	if len(args) > 0 {
		for i, a := range args {
			arr, err := checkedJSON(fmt.Sprintf("argument %d", firstArg+i), []byte(a), check)
			if err != nil {
				return nil, &codedError{code: exitUsage, msg: err.Error()}
			}
			out = append(out, arr)
		}
		return out, nil
	}
	r := bufio.NewReader(stdin)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			arr, derr := checkedJSON(fmt.Sprintf("stdin line %d", n), line, check)
			if derr != nil {
				return nil, derr
			}
			out = append(out, arr)
		}
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading stdin: %w", err)
		}
	}
}

// printRecordLine writes one record as storh's compact JSON line
// {"id":...,"data":...}: how storh's json_encode writes a StorageRecord
// (the corpus's result encoding; non-ASCII unescaped, 1.0 kept).
func printRecordLine(w io.Writer, id string, data phpjson.Value) error {
	rec := phpjson.NewArray(2)
	rec.SetString("id", id)
	rec.SetString("data", data)
	out, err := phpjson.Encode(rec)
	if err != nil {
		return fmt.Errorf("%s: %w", id, err)
	}
	_, err = w.Write(append(out, '\n'))
	return err
}

// validIDs fails with a usage error naming the first argument of ids that
// is not a UUIDv7 (storh's record and job ids); ids[0] is argument first.
func validIDs(c *cli.Context, ids []string, first int) error {
	for i, id := range ids {
		if !uuidv7.Valid(id) {
			return usageErr(c, "argument %d: %q is not a UUIDv7 id", first+i, id)
		}
	}
	return nil
}

// stringKeysOnly refuses a queue payload or log record that storh would
// shrink: its readers (payload_from_value, a log record's data) drop every
// integer key, a list's or a numeric string's such as "1".
func stringKeysOnly(a *phpjson.Array) error {
	for _, k := range a.Keys() {
		if k.IsInt() {
			return fmt.Errorf("key %s would be dropped: storh reads back only the string keys (use an object)", k)
		}
	}
	return nil
}

// checkArgs is the usage check of the record, log and queue commands: no
// flag after ROOT (urfave/cli stops reading flags at the first argument,
// so it would be taken for an argument) and between min and max arguments
// (max < 0: no upper bound); need says which.
func checkArgs(c *cli.Context, min, max int, need string) error {
	for _, a := range c.Args().Slice() {
		if strings.HasPrefix(a, "--") {
			return usageErr(c, "flag %s after ROOT: flags go before ROOT", a)
		}
	}
	if n := c.NArg(); n < min || (max >= 0 && n > max) {
		return usageErr(c, "need %s", need)
	}
	return nil
}
