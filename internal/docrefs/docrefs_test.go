package docrefs

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoRoot is the repository root, two levels above this package.
const repoRoot = "../.."

var (
	// mdName is a Markdown file name as prose mentions one: a path ending
	// in .md (letters, digits, _ . / - before it).
	mdName = regexp.MustCompile(`[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md\b`)
	// docRef is a reference to a section: "<path>.md §N[.M...][-N.M]" or
	// "<path>.md#slug".
	docRef = regexp.MustCompile(`([A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md)(?:,? §(\d+(?:\.\d+)*)(?:-(\d+(?:\.\d+)*))?|#([a-z0-9_-]+))`)
	// namedRef is a reference by heading text: `README.md, "Mounting"` or
	// `docs/format/queue.md §6, "Batching"`.
	namedRef = regexp.MustCompile(`([A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md)(?: §[0-9.]+)?,\s+"([^"]+)"`)
	// oldSpec is any citation of the former out-of-tree format text, which
	// comments cited as "spe" + "c 7.2" or "spe" + "c queue" + ".md A7".
	oldSpec = regexp.MustCompile(`(?i)\bspecs?\b`)
	// heading is a Markdown ATX heading; number is its leading section
	// number ("4" of "## 4. Writes", "4.1" of "### 4.1 Record writes").
	heading = regexp.MustCompile(`(?m)^#{1,6} +(.+?)\s*$`)
	number  = regexp.MustCompile(`^(\d+(?:\.\d+)*)\.?(?: |$)`)
	// outside is a path beside the repository; ../shared/oracle (the PHP
	// oracle, a test prerequisite) is the one allowed.
	outside = regexp.MustCompile(`\.\./shared(/[A-Za-z0-9_.-]+)?`)
)

// TestGoCommentsReferToRepositoryDocs checks every comment of every .go file.
func TestGoCommentsReferToRepositoryDocs(t *testing.T) {
	docs := newDocIndex(t)
	fset := token.NewFileSet()
	walk(t, func(path string) {
		if !strings.HasSuffix(path, ".go") {
			return
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return
		}
		for _, group := range f.Comments {
			text := group.Text()
			where := fset.Position(group.Pos()).String()
			if m := oldSpec.FindString(text); m != "" {
				t.Errorf("%s: comment cites the old spec (%q): point at docs/format instead", rel(where), m)
			}
			for _, name := range mdName.FindAllString(text, -1) {
				if !docs.exists(name) {
					t.Errorf("%s: comment names %s, which is not a file of the repository (write its path from the repository root)", rel(where), name)
				}
			}
			checkSections(t, docs, rel(where), text)
			checkNamed(t, docs, rel(where), text)
			checkOutside(t, rel(where), text)
		}
	})
}

// TestDocsReferToRepositoryDocs checks the Markdown files: cross references
// between documents name existing sections, and nothing relies on files
// beside the repository except the oracle.
func TestDocsReferToRepositoryDocs(t *testing.T) {
	docs := newDocIndex(t)
	walk(t, func(path string) {
		if !strings.HasSuffix(path, ".md") {
			return
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		dir, _ := filepath.Rel(repoRoot, filepath.Dir(path))
		checkOutside(t, rel(path), text)
		for _, m := range docRef.FindAllStringSubmatch(text, -1) {
			// Inside a document, a bare file name names a sibling.
			name := m[1]
			if !docs.exists(name) && docs.exists(filepath.Join(dir, name)) {
				name = filepath.Join(dir, name)
			}
			checkRef(t, docs, rel(path), name, m)
		}
	})
}

// checkSections checks every section reference in a Go comment.
func checkSections(t *testing.T, docs *docIndex, where, text string) {
	t.Helper()
	for _, m := range docRef.FindAllStringSubmatch(text, -1) {
		checkRef(t, docs, where, m[1], m)
	}
}

// checkRef checks one docRef match m whose document resolved to name.
func checkRef(t *testing.T, docs *docIndex, where, name string, m []string) {
	t.Helper()
	if !docs.exists(name) {
		t.Errorf("%s: %s is not a file of the repository", where, m[1])
		return
	}
	for _, num := range []string{m[2], m[3]} {
		if num != "" && !docs.hasNumber(name, num) {
			t.Errorf("%s: %s has no section §%s", where, name, num)
		}
	}
	if slug := m[4]; slug != "" && !docs.hasSlug(name, slug) {
		t.Errorf("%s: %s has no heading #%s", where, name, slug)
	}
}

// checkNamed checks the references by heading text in a Go comment.
func checkNamed(t *testing.T, docs *docIndex, where, text string) {
	t.Helper()
	for _, m := range namedRef.FindAllStringSubmatch(text, -1) {
		title := strings.Join(strings.Fields(m[2]), " ")
		if docs.exists(m[1]) && !docs.hasSlug(m[1], slug(title)) && !docs.hasTitle(m[1], title) {
			t.Errorf("%s: %s has no heading %q", where, m[1], title)
		}
	}
}

// checkOutside reports paths beside the repository other than the oracle.
func checkOutside(t *testing.T, where, text string) {
	t.Helper()
	for _, m := range outside.FindAllStringSubmatch(text, -1) {
		if m[1] != "/oracle" {
			t.Errorf("%s: refers to %s, outside the repository", where, m[0])
		}
	}
}

// docIndex knows the section numbers and heading slugs of the repository's
// Markdown files, read on demand.
type docIndex struct {
	t        *testing.T
	numbers  map[string]map[string]bool
	slugs    map[string]map[string]bool
	notFound map[string]bool
}

func newDocIndex(t *testing.T) *docIndex {
	return &docIndex{t: t, numbers: map[string]map[string]bool{}, slugs: map[string]map[string]bool{}, notFound: map[string]bool{}}
}

// exists reports whether name (a path from the repository root) is a file.
func (d *docIndex) exists(name string) bool {
	name = filepath.Clean(name)
	if _, ok := d.numbers[name]; ok {
		return true
	}
	if d.notFound[name] {
		return false
	}
	b, err := os.ReadFile(filepath.Join(repoRoot, name))
	if err != nil {
		d.notFound[name] = true
		return false
	}
	nums, slugs := map[string]bool{}, map[string]bool{}
	inFence := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		m := heading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		title := m[1]
		if n := number.FindStringSubmatch(title); n != nil {
			nums[n[1]] = true
			title = strings.TrimSpace(title[len(n[0]):])
		}
		slugs[slug(m[1])] = true
		nums["title:"+title] = true
	}
	d.numbers[name], d.slugs[name] = nums, slugs
	return true
}

func (d *docIndex) hasNumber(name, num string) bool {
	return d.numbers[filepath.Clean(name)][num]
}

// hasTitle reports whether name has a heading whose text, without its
// section number, is title.
func (d *docIndex) hasTitle(name, title string) bool {
	return d.numbers[filepath.Clean(name)]["title:"+title]
}

func (d *docIndex) hasSlug(name, s string) bool {
	return d.slugs[filepath.Clean(name)][s]
}

// slug is GitHub's anchor of a heading: lower case, punctuation other than
// "-" and "_" dropped, spaces turned into "-".
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// walk calls fn for every file of the repository except .git and the
// golden corpus's cases.
func walk(t *testing.T, fn func(path string)) {
	t.Helper()
	err := filepath.WalkDir(repoRoot, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			switch e.Name() {
			case ".git", "node_modules":
				return filepath.SkipDir
			}
			if filepath.Dir(path) == filepath.Join(repoRoot, "testdata", "conformance") {
				return filepath.SkipDir // the cases: PHP's output, not prose
			}
			return nil
		}
		fn(path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// rel shortens a path (or "path:line:col") to be relative to the repository.
func rel(p string) string {
	return strings.TrimPrefix(p, repoRoot+"/")
}
