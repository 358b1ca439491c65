package docindex

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// wholeFileCount and wholeFileIDs are the raw scans as they were before
// the head reads: os.ReadFile, then one pass over the whole content. The
// prefix paths must give exactly their answers.
func wholeFileCount(content []byte, key string) (int64, bool) {
	marker := `"key":"` + key + `"`
	at := bytes.Index(content, []byte(marker))
	if at < 0 {
		return 0, false
	}
	rest := content[at+len(marker):]
	i := bytes.Index(rest, []byte(`,"count":`))
	if i < 0 {
		return 0, true
	}
	digits := rest[i+len(`,"count":`):]
	var n int64
	j := 0
	for ; j < len(digits) && digits[j] >= '0' && digits[j] <= '9'; j++ {
		if n > (1<<63-1-9)/10 {
			n = 1<<63 - 1
			continue
		}
		n = n*10 + int64(digits[j]-'0')
	}
	if j == 0 {
		return 0, true
	}
	return n, false
}

func wholeFileIDs(content []byte, key string) ([]string, bool) {
	marker := `"key":"` + key + `"`
	at := bytes.Index(content, []byte(marker))
	if at < 0 {
		return nil, false
	}
	rest := content[at+len(marker):]
	i := bytes.Index(rest, []byte(`,"ids":[`))
	if i < 0 {
		return nil, true
	}
	list := rest[i+len(`,"ids":[`):]
	end := bytes.IndexByte(list, ']')
	if end < 0 {
		return nil, true
	}
	if end == 0 {
		return []string{}, false
	}
	if list[0] != '"' || list[end-1] != '"' || end < 2 {
		return nil, true
	}
	return strings.Split(string(list[1:end-1]), `","`), false
}

func testID(i int) string { return fmt.Sprintf("0190a000-0000-7000-8000-%012d", i) }

func testIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = testID(i * 3)
	}
	return ids
}

func canonicalEntry(t testing.TB, field, key string, value any, ids []string) string {
	e := entry{field: field, key: key, value: value, ids: ids}
	content, err := e.encode()
	must(t, err)
	return string(content)
}

// entryHeadCases: canonical files of 300 ids and every way of leaving the
// layout; long is the length of the long strings (> headSize in tests,
// short for fuzz seeds, which the fuzzer minimizes).
func entryHeadCases(t testing.TB, long int) []string {
	ids := testIDs(300)
	if long < headSize {
		ids = ids[:12]
	}
	big := canonicalEntry(t, "kind", "s-70", "p", ids)
	list := `["` + strings.Join(ids, `","`) + `"]`
	n := len(ids)
	count := fmt.Sprintf(`"count":%d`, n)
	mid, last := ids[n/3], ids[n-1]
	cases := []string{
		big,
		canonicalEntry(t, "kind", "s-70", "p", ids[:1]),
		canonicalEntry(t, "a\tb", "c-97e2ae8da5521ecbfcc18a3480d4b272", nil, ids[:7]),
		canonicalEntry(t, "kind", "s-70", strings.Repeat("v", long), ids), // value > head
		canonicalEntry(t, strings.Repeat("f", long), "s-70", "p", ids[:10]),
		canonicalEntry(t, "kind", "s-70", "p", []string{"short", "z"}),
		canonicalEntry(t, "kind", "s-70", "p", []string{ids[5], ids[1], ids[9]}), // unsorted
		canonicalEntry(t, "kind", "s-70", "p", []string{ids[1], ids[1], ids[2]}), // duplicate
		// count not matching the ids
		strings.Replace(big, count, fmt.Sprintf(`"count":%d`, n-1), 1),
		strings.Replace(big, count, fmt.Sprintf(`"count":%d`, n+1), 1),
		strings.Replace(big, count, `"count":99999999999999999999999`, 1),
		strings.Replace(big, count, `"count":-1`, 1),
		strings.Replace(big, count+",", ``, 1),
		// pretty-printed, reordered, escaped
		"{\n  \"field\": \"kind\",\n  \"key\": \"s-70\",\n  \"count\": " + fmt.Sprint(n) + ",\n  \"ids\": " + list + "\n}\n",
		`{"ids":` + list + `,"field":"kind","key":"s-70",` + count + `,"value":"p"}` + "\n",
		`{"field":"kind",` + count + `,"key":"s-70","value":"p","ids":` + list + `}` + "\n",
		`{"field":"kind","key":"s-70","value":"p","ids":` + list + `,` + count + `}` + "\n",
		strings.Replace(big, mid, mid[:35]+`\"`, 1),
		strings.Replace(big, mid, mid[:34]+`]0`, 1),
		strings.Replace(big, `","`+ids[n/2], `"x"`+ids[n/2][:36], 1),
		strings.Replace(big, last+`"]`, last+`",`, 1),
		strings.Replace(big, `]}`, `] }`, 1),
		strings.Replace(big, "}\n", "}", 1),
		// the key literal elsewhere, or absent
		`{"field":"kind","value":"\"key\":\"s-70\",\"count\":5,\"ids\":[\"a\"]","key":"s-70",` + count + `,"ids":` + list + "}\n",
		strings.Replace(big, `"key":"s-70"`, `"key":"s-71"`, 1),
		strings.Replace(big, `,"ids":[`, `,"ids": [`, 1),
		"", "{", `{"key":"s-70"`, `{"key":"s-70","count":`, `{"key":"s-70","count":1`,
		`{"key":"s-70","count":1,"ids":[]}`, `{"key":"s-70","count":1,"ids":["]}`,
	}
	for _, cut := range []int{1, 100, 4095, 4096, 4097, len(big) / 2, len(big) - 3, len(big) - 1} {
		if cut < len(big) {
			cases = append(cases, big[:cut]) // truncated
		}
	}
	return cases
}

// checkEntryHead compares every prefix path with the whole-file scans on
// content stored at path.
func checkEntryHead(t *testing.T, path, content, key string, afters []string, limits, pageBy []int) {
	t.Helper()
	must(t, os.WriteFile(path, []byte(content), 0o666))
	name := content
	if len(name) > 80 {
		name = name[:80] + "..."
	}
	malformed := "Malformed equality index: " + path

	wantN, badN := wholeFileCount([]byte(content), key)
	n, err := rawEntryCount(path, key)
	if badN {
		if err == nil || err.Error() != malformed {
			t.Errorf("%q: count %d, %v; want %q", name, n, err, malformed)
		}
	} else if err != nil || n != wantN {
		t.Errorf("%q: count %d, %v; want %d", name, n, err, wantN)
	}

	wantIDs, badIDs := wholeFileIDs([]byte(content), key)
	ids, err := rawEntryIDs(path, key)
	if badIDs {
		if err == nil || err.Error() != malformed {
			t.Errorf("%q: ids %q, %v; want %q", name, ids, err, malformed)
		}
	} else if err != nil || !slices.Equal(ids, wantIDs) {
		t.Errorf("%q: ids %d, %v; want %d", name, len(ids), err, len(wantIDs))
	}

	sorted := sortedUnique(slices.Clone(wantIDs))
	if slots, trusting := trustedSlots([]byte(content), key); trusting {
		checkTrustedPages(t, path, key, name, slots, sorted, afters, limits)
		return
	}
	for _, after := range afters {
		for _, limit := range limits {
			page, err := entryIDsAfter(path, key, after, limit)
			if badIDs {
				if err == nil || err.Error() != malformed {
					t.Errorf("%q after %q limit %d: %d ids, %v; want %q", name, after, limit, len(page), err, malformed)
				}
				continue
			}
			if want := pageAfter(sorted, after, limit); err != nil || !slices.Equal(page, want) {
				t.Errorf("%q after %q limit %d: %q, %v; want %q", name, after, limit, page, err, want)
			}
		}
	}
	if badIDs {
		return
	}
	// Paging by the last id returned visits every id once, in order.
	for _, limit := range pageBy {
		var all []string
		after := ""
		for {
			page, err := entryIDsAfter(path, key, after, limit)
			must(t, err)
			all = append(all, page...)
			if len(page) < limit {
				break
			}
			after = page[len(page)-1]
		}
		if !slices.Equal(all, sorted) {
			t.Errorf("%q: paging by %d gives %d ids, want %d", name, limit, len(all), len(sorted))
		}
	}
}

// trustedSlots reports whether content claims the fixed id layout while
// some slot breaks it (bad quotes or separator, or ids not strictly
// ascending): the paged read trusts the slots it does not read, so its
// answer may differ from the whole-file scan. slots are the id texts at
// the slot positions.
func trustedSlots(content []byte, key string) (slots []string, trusting bool) {
	list, _ := findFixedIDList(content, key, true, int64(len(content)))
	if list.n == 0 {
		return nil, false
	}
	for i := int64(0); i < list.n; i++ {
		s := string(content[list.start+i*idSlot : list.start+(i+1)*idSlot])
		slots = append(slots, s[1:37])
		sep := byte(',')
		if i == list.n-1 {
			sep = ']'
		}
		if s[0] != '"' || s[37] != '"' || s[38] != sep || strings.ContainsAny(s[1:37], `"]`) ||
			(i > 0 && slots[i] <= slots[i-1]) {
			trusting = true
		}
	}
	return slots, trusting
}

// checkTrustedPages: on a file whose unread slots are trusted, a page is
// an error, the whole-file answer (sorted: the whole-file ids, sorted) or
// strictly ascending ids after `after` taken from the slots, at most limit
// of them.
func checkTrustedPages(t *testing.T, path, key, name string, slots, sorted, afters []string, limits []int) {
	t.Helper()
	for _, after := range afters {
		for _, limit := range limits {
			page, err := entryIDsAfter(path, key, after, limit)
			if err != nil || slices.Equal(page, pageAfter(sorted, after, limit)) {
				continue
			}
			if limit > 0 && len(page) > limit {
				t.Errorf("%q after %q limit %d: %d ids", name, after, limit, len(page))
			}
			for i, id := range page {
				if id <= after || (i > 0 && id <= page[i-1]) || !slices.Contains(slots, id) {
					t.Errorf("%q after %q limit %d: id %d %q out of order or not stored", name, after, limit, i, id)
				}
			}
		}
	}
}

func TestEntryHeadMatchesWholeFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "e.jsonc")
	ids := testIDs(300)
	afters := []string{"", ids[0], ids[1], testID(1), ids[150], testID(451), ids[298], ids[299], "z", "\xff"}
	for _, content := range entryHeadCases(t, 6000) {
		for _, key := range []string{"s-70", "c-97e2ae8da5521ecbfcc18a3480d4b272", "s-7"} {
			checkEntryHead(t, path, content, key, afters, []int{0, 1, 2, 100, 1000}, []int{1, 7, 100})
		}
	}
}

// The files storh writes take the fixed layout: no whole read.
func TestFixedIDListOnCanonicalFiles(t *testing.T) {
	ids := testIDs(2000)
	for _, c := range []struct{ field, key string }{
		{"kind", "s-6b30"},
		{"a\tb", "c-97e2ae8da5521ecbfcc18a3480d4b272"},
		{strings.Repeat("f", 5000), "i-m1"},
	} {
		for _, n := range []int{1, 2, 2000} {
			content := canonicalEntry(t, c.field, c.key, "v", ids[:n])
			list, res := findFixedIDList([]byte(content), c.key, true, int64(len(content)))
			if res != scanFound || list.n != int64(n) {
				t.Errorf("%s/%d: layout %+v, %v", c.key, n, list, res)
			}
		}
	}
	path := filepath.Join(t.TempDir(), "e.jsonc")
	must(t, os.WriteFile(path, []byte(canonicalEntry(t, "kind", "s-6b30", "v", ids)), 0o666))
	f, err := openEntry(path, true)
	must(t, err)
	defer f.close()
	list, res := findFixedIDList(f.text, "s-6b30", false, f.size)
	if res != scanUndecided {
		t.Fatalf("empty prefix decided: %v", res)
	}
	must(t, f.readTo(headSize))
	if list, res = findFixedIDList(f.text, "s-6b30", f.eof, f.size); res != scanFound || list.n != 2000 {
		t.Fatalf("head: layout %+v, %v", list, res)
	}
	page, ok, err := list.page(f, ids[999], 100)
	if err != nil || !ok || !slices.Equal(page, ids[1000:1100]) {
		t.Errorf("page after %s: ok %v, %v, %d ids", ids[999], ok, err, len(page))
	}
	if len(f.text) != headSize {
		t.Errorf("read %d bytes into the head, want %d", len(f.text), headSize)
	}
}

func TestEntryReadsAbsent(t *testing.T) {
	dir := t.TempDir()
	for _, path := range []string{dir + "/missing.jsonc", dir, dir + "/missing/x.jsonc", dir + "/" + strings.Repeat("x", 300)} {
		if n, err := rawEntryCount(path, "k"); n != 0 || err != nil {
			t.Errorf("%s: count %d, %v", path, n, err)
		}
		if ids, err := rawEntryIDs(path, "k"); ids != nil || err != nil {
			t.Errorf("%s: ids %q, %v", path, ids, err)
		}
		if ids, err := entryIDsAfter(path, "k", "", 10); ids != nil || err != nil {
			t.Errorf("%s: page %q, %v", path, ids, err)
		}
	}
}

// FuzzEntryHead: every decision taken on a prefix is the whole file's, and
// the file-level reads agree with the whole-file scans.
func FuzzEntryHead(f *testing.F) {
	for _, c := range entryHeadCases(f, 40) {
		f.Add(c, "s-70", uint16(len(c)/3), "", uint8(3))
	}
	for _, s := range entryReadSeeds {
		f.Add(s, "s-70616765", uint16(20), idA, uint8(1))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, content, key string, cut uint16, after string, limit uint8) {
		whole := []byte(content)
		prefix := whole[:min(int(cut), len(whole))]
		wantN, badN := wholeFileCount(whole, key)
		if n, _, res := scanCount(prefix, key, false); res != scanUndecided {
			if (res == scanMalformed) != badN || (res == scanFound && n != wantN) || (res == scanAbsent) != (!badN && !strings.Contains(content, `"key":"`+key+`"`)) {
				t.Fatalf("count on %d-byte prefix: %d %v; whole %d %v", len(prefix), n, res, wantN, badN)
			}
		}
		wantIDs, badIDs := wholeFileIDs(whole, key)
		if ids, res := scanIDs(prefix, key, false); res != scanUndecided {
			if (res == scanMalformed) != badIDs || (res == scanFound && !slices.Equal(ids, wantIDs)) {
				t.Fatalf("ids on %d-byte prefix: %q %v; whole %q %v", len(prefix), ids, res, wantIDs, badIDs)
			}
		}
		if strings.ContainsAny(key, "/\x00") {
			return
		}
		checkEntryHead(t, dir+"/e.jsonc", content, key, []string{"", after}, []int{0, int(limit)}, []int{max(int(limit), 50)})
	})
}
