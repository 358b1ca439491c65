package conformance

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/storhfs/storhfs/core/phpjson"
)

// isHarnessOp reports whether the harness executes op itself (README 4.1).
func isHarnessOp(name string) bool {
	switch name {
	case "fs_write", "fs_append", "fs_delete", "fs_list":
		return true
	}
	return false
}

// execHarnessOp runs fs_write, fs_append, fs_delete or fs_list against root.
func execHarnessOp(name string, op *phpjson.Array, root string) (phpjson.Value, error) {
	rel, ok := stringMember(op, "path")
	if !ok {
		return nil, fmt.Errorf("harness: %s without a string path", name)
	}
	abs := root + "/" + rel
	switch name {
	case "fs_write", "fs_append":
		data, err := opBytes(op)
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(filepath.Dir(abs), 0o777); err != nil {
			return nil, err
		}
		flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		if name == "fs_append" {
			flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
		}
		f, err := os.OpenFile(abs, flag, 0o666)
		if err != nil {
			return nil, err
		}
		_, werr := f.Write(data)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		return nil, werr
	case "fs_delete":
		if err := os.Remove(abs); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		return nil, nil
	case "fs_list":
		return fsList(root, rel), nil
	}
	return nil, fmt.Errorf("harness: unknown op %q", name)
}

// opBytes returns the op's "text" (raw UTF-8) or decoded "base64" member.
func opBytes(op *phpjson.Array) ([]byte, error) {
	if s, ok := stringMember(op, "text"); ok {
		return []byte(s), nil
	}
	if s, ok := stringMember(op, "base64"); ok {
		return base64.StdEncoding.DecodeString(s)
	}
	return nil, errors.New("harness: fs op without text or base64")
}

// fsList lists every entry below root/rel, normalised as of now and sorted
// bytewise by its relative path (directories with a trailing slash):
// [{"path":"sub/","type":"dir"}, {"path":"sub/f","type":"file","size":n}].
func fsList(root, rel string) *phpjson.Array {
	norm := newNormaliser(root)
	prefix := ""
	if r := strings.TrimSuffix(rel, "/"); r != "" {
		prefix = r + "/"
	}
	type entry struct {
		path  string
		isDir bool
		size  int64
	}
	var entries []entry
	_ = walkTree(root+"/"+rel, func(sub string, isDir bool, size int64) {
		full, keep := norm.path(prefix+sub, isDir)
		if !keep {
			return
		}
		p := strings.TrimPrefix(full, prefix)
		if isDir {
			p += "/"
		}
		entries = append(entries, entry{p, isDir, size})
	})
	sort.Slice(entries, func(i, j int) bool { return entries[i].path < entries[j].path })
	out := phpjson.NewArray(len(entries))
	for _, e := range entries {
		item := phpjson.NewArray(3)
		item.SetString("path", e.path)
		if e.isDir {
			item.SetString("type", "dir")
		} else {
			item.SetString("type", "file")
			item.SetString("size", e.size)
		}
		out.Append(item)
	}
	return out
}

// stringMember returns op[name] when it is a string.
func stringMember(op *phpjson.Array, name string) (string, bool) {
	s, ok := OpValue(op, name).(string)
	return s, ok
}
