package conformance

import (
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/storhfs/storhfs/core/phpjson"
)

// Replacement tokens of README 7.3 and 7.4.
const (
	tokenReferenced   = "00000000"
	tokenUnreferenced = "ffffffff"
	quarantineSuffix  = "00000000"
)

// normaliser applies README section 7 to result values, paths and file
// contents, as of one moment of the storage tree (compaction tokens depend
// on which manifest references them).
type normaliser struct {
	root   string            // absolute storage root, replaced by <ROOT> in strings
	pid    string            // our PID: own writer markers are excluded
	tokens map[string]string // compaction token -> 00000000 | ffffffff
}

// newNormaliser scans the tree under root for compaction files
// (X/segments/compact-<8 hex>-...) and maps each token to 00000000 when
// X/manifest.jsonc contains `"compact-<token>-`, else to ffffffff.
func newNormaliser(root string) *normaliser {
	n := &normaliser{root: root, pid: strconv.Itoa(os.Getpid()), tokens: map[string]string{}}
	manifests := map[string]string{} // X -> manifest text
	_ = walkTree(root, func(rel string, isDir bool, _ int64) {
		if isDir || path.Base(path.Dir(rel)) != "segments" {
			return
		}
		tok, ok := compactionToken(path.Base(rel))
		if !ok {
			return
		}
		x := path.Dir(path.Dir(rel))
		m, seen := manifests[x]
		if !seen {
			b, _ := os.ReadFile(root + "/" + x + "/manifest.jsonc")
			m = string(b)
			manifests[x] = m
		}
		if strings.Contains(m, `"compact-`+tok+`-`) {
			n.tokens[tok] = tokenReferenced
		} else if n.tokens[tok] != tokenReferenced {
			n.tokens[tok] = tokenUnreferenced
		}
	})
	return n
}

// compactionToken returns <token> of "compact-<token>-..." (8 lowercase hex).
func compactionToken(name string) (string, bool) {
	const prefix = "compact-"
	if len(name) < len(prefix)+9 || name[:len(prefix)] != prefix || name[len(prefix)+8] != '-' {
		return "", false
	}
	tok := name[len(prefix) : len(prefix)+8]
	for i := 0; i < len(tok); i++ {
		if c := tok[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return "", false
		}
	}
	return tok, true
}

// path normalises a slash path relative to the root. keep is false for
// our own writer markers (<pid>.<8 hex> directly in a .storh/writers/).
func (n *normaliser) path(rel string, isDir bool) (out string, keep bool) {
	if isDir {
		return rel, true
	}
	dir, name := path.Split(rel)
	parent := path.Base(dir)
	grand := path.Base(path.Dir(strings.TrimSuffix(dir, "/")))
	switch {
	case parent == "writers" && grand == ".storh" && n.isOwnMarker(name):
		return "", false
	case parent == "segments":
		if tok, ok := compactionToken(name); ok {
			if repl, ok := n.tokens[tok]; ok {
				return dir + "compact-" + repl + name[len("compact-")+8:], true
			}
		}
	case parent == "corrupt" && grand == ".storh":
		if stem, ok := quarantineStem(name); ok {
			return dir + stem + "-" + quarantineSuffix + ".jsonc", true
		}
	}
	return rel, true
}

// isOwnMarker matches "<our pid>.<8 lowercase hex>".
func (n *normaliser) isOwnMarker(name string) bool {
	if len(name) != len(n.pid)+9 || !strings.HasPrefix(name, n.pid+".") {
		return false
	}
	return isLowerHex(name[len(n.pid)+1:])
}

// quarantineStem matches "<stem>-<8 lowercase hex>.jsonc" and returns stem.
func quarantineStem(name string) (string, bool) {
	const ext = ".jsonc"
	if !strings.HasSuffix(name, ext) || len(name) < len(ext)+9 {
		return "", false
	}
	body := name[:len(name)-len(ext)]
	if body[len(body)-9] != '-' || !isLowerHex(body[len(body)-8:]) {
		return "", false
	}
	return body[:len(body)-9], true
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return s != ""
}

// content normalises file bytes: a log manifest gets its compaction tokens
// rewritten.
func (n *normaliser) content(rel string, data []byte) []byte {
	if path.Base(rel) != "manifest.jsonc" || len(n.tokens) == 0 {
		return data
	}
	return []byte(n.tokenText(string(data)))
}

func (n *normaliser) tokenText(s string) string {
	for tok, repl := range n.tokens {
		s = strings.ReplaceAll(s, "compact-"+tok+"-", "compact-"+repl+"-")
	}
	return s
}

// str normalises one result string: storage root -> <ROOT>, compaction tokens.
func (n *normaliser) str(s string) string {
	if n.root != "" {
		s = strings.ReplaceAll(s, n.root, "<ROOT>")
	}
	return n.tokenText(s)
}

// value returns v with every string (values and string keys) normalised;
// v itself is not modified.
func (n *normaliser) value(v phpjson.Value) phpjson.Value {
	switch x := v.(type) {
	case string:
		return n.str(x)
	case *phpjson.Array:
		if x == nil {
			return x
		}
		out := phpjson.NewArray(x.Len())
		for i := 0; i < x.Len(); i++ {
			k, val := x.At(i)
			if !k.IsInt() {
				k = phpjson.StrKey(n.str(k.String()))
			}
			out.Set(k, n.value(val))
		}
		return out
	}
	return v
}

// walkTree calls fn for every entry below root (slash paths relative to
// root, bytewise sorted per directory; symlinks are reported as files and
// not followed). A missing root yields nothing.
func walkTree(root string, fn func(rel string, isDir bool, size int64)) error {
	var walk func(dir, rel string) error
	walk = func(dir, rel string) error {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			r := e.Name()
			if rel != "" {
				r = rel + "/" + r
			}
			if e.IsDir() {
				fn(r, true, 0)
				if err := walk(dir+"/"+e.Name(), r); err != nil {
					return err
				}
				continue
			}
			var size int64
			if info, err := e.Info(); err == nil {
				size = info.Size()
			}
			fn(r, false, size)
		}
		return nil
	}
	err := walk(root, "")
	if os.IsNotExist(err) {
		return nil
	}
	return err
}
