package integration

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// docOp is one acknowledged-or-not write on a record, as every writer logs
// it (PHP's doc_writer.php writes the same JSON). W and N name the attempt:
// every put's data carries them, so what a reader or the final tree shows
// is traced to the one attempt that wrote it.
type docOp struct {
	W    string         `json:"w"`
	N    int            `json:"n"`
	Op   string         `json:"op"` // put or delete
	ID   string         `json:"id"`
	Data map[string]any `json:"data,omitempty"`
	// OK: the writer was told the write is stored (PHP: put/delete
	// returned; mount: the tool exited 0, so close returned 0; CLI: exit 0).
	OK  bool   `json:"ok"`
	Err string `json:"err,omitempty"`
	How string `json:"how,omitempty"` // the tool, for mount and CLI writers
	// T0, T1: CLOCK_MONOTONIC ns before the attempt started and after the
	// writer learnt its outcome.
	T0 int64 `json:"t0"`
	T1 int64 `json:"t1"`
}

// docData is what every writer puts in a record (field order as PHP's).
type docData struct {
	W     string `json:"w"`
	N     int    `json:"n"`
	Slug  string `json:"slug"`
	Kind  string `json:"kind"`
	Score int    `json:"score"`
}

// docSeen is one read of a record during the run: the whole file (cat,
// storhfs get) or its data only (jq .data).
type docSeen struct {
	how, id  string
	content  string
	dataOnly bool
	failed   string // the tool's failure (cat, jq: it could not read or parse the record)
	t0, t1   int64  // CLOCK_MONOTONIC ns around the read
}

// docUniverse is the ids of the scenario: each writer's own range and a
// range every writer uses.
type docUniverse struct {
	own    map[string][]string
	shared []string
	all    map[string]bool
}

func newDocUniverse(t *testing.T, writers []string, perWriter, shared int) docUniverse {
	u := docUniverse{own: map[string][]string{}, all: map[string]bool{}}
	for _, w := range writers {
		for range perWriter {
			u.own[w] = append(u.own[w], newID(t))
		}
	}
	for range shared {
		u.shared = append(u.shared, newID(t))
	}
	for _, id := range append(slices.Concat(slices.Collect(mapValues(u.own))...), u.shared...) {
		u.all[id] = true
	}
	return u
}

func mapValues[K comparable, V any](m map[K]V) func(func(V) bool) {
	return func(yield func(V) bool) {
		for _, v := range m {
			if !yield(v) {
				return
			}
		}
	}
}

// pick returns an id of w's own range (2 in 3) or of the shared range.
func (u docUniverse) pick(r *rand.Rand, w string) string {
	if r.IntN(3) == 0 {
		return u.shared[r.IntN(len(u.shared))]
	}
	return u.own[w][r.IntN(len(u.own[w]))]
}

func (u docUniverse) anyID(r *rand.Rand) string {
	ids := slices.Sorted(func(yield func(string) bool) {
		for id := range u.all {
			if !yield(id) {
				return
			}
		}
	})
	return ids[r.IntN(len(ids))]
}

// newDocData is a random record of attempt (w, n); one slug in five is
// from a pool of four every writer uses, so unique conflicts happen.
func newDocData(r *rand.Rand, w string, n int) docData {
	slug := fmt.Sprintf("s-%s-%d", w, n)
	if r.IntN(5) == 0 {
		slug = fmt.Sprintf("dup-%d", r.IntN(4))
	}
	return docData{W: w, N: n, Slug: slug, Kind: fmt.Sprintf("k%d", r.IntN(5)), Score: r.IntN(1001)}
}

// asMap is d as JSON decodes it, to compare with what is read back.
func (d docData) asMap() map[string]any {
	b, _ := json.Marshal(d)
	var m map[string]any
	json.Unmarshal(b, &m)
	return m
}

// recordText is the record file for d: compact on one line, or indented.
func recordText(id string, d docData, pretty bool) string {
	rec := struct {
		ID   string  `json:"id"`
		Data docData `json:"data"`
	}{id, d}
	var b []byte
	if pretty {
		b, _ = json.MarshalIndent(rec, "", "  ")
	} else {
		b, _ = json.Marshal(rec)
	}
	return string(b) + "\n"
}

// opLog collects the Go writers' docOps.
type opLog struct {
	mu  sync.Mutex
	ops []docOp
}

func (l *opLog) add(op docOp) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ops = append(l.ops, op)
}

// TestCoopDocStore: two PHP DocStore clients put and delete records of one
// collection (slug unique, kind equality, score range) while two writers
// replace and delete them through the mount (cat >, cp, sed -i, mv from a
// scratch name, rm), one writer uses `storhfs put/delete` on ROOT, and
// readers cat, jq, grep, ls through the mount and `storhfs get` ROOT.
// Each writer has an own id range and all share one more range.
//
// Judgement of the final tree, per id (one rule for both ranges): an
// acknowledged op A is superseded when another acknowledged op on the id
// started after A's acknowledgement (B.T0 > A.T1); the record must be in
// the state an unsuperseded acknowledged op left (its content for a put,
// absent for a delete), or absent when no op on it was acknowledged. In an
// own range, written by one writer in sequence, that is exactly the last
// acknowledged op. Refused writes (unique conflicts) must leave no trace.
func TestCoopDocStore(t *testing.T) {
	requireFuse(t, "cat", "cp", "sed", "mv", "rm", "jq", "grep", "ls", "sh")
	o := requireOracle(t)
	root := filepath.Join(t.TempDir(), "root")
	coopDocStore(t, o, coopDuration(t), coopHosts{php: root, b: root})
}

// coopHosts are the storage root as each side of a co-operation scenario
// reaches it: the same directory on one host, or two clients of one
// shared volume (TestSharedGluster), PHP on host A and the mount and the
// storhfs commands on host B.
type coopHosts struct {
	php, b     string
	mountFlags []string // for the mount on b
	// slow: a network file system, where a short run makes too few
	// writes for a unique conflict to be certain (the caller tests the
	// unique index across hosts on its own).
	slow bool
}

// coopDocStore is TestCoopDocStore's scenario on hosts.
func coopDocStore(t *testing.T, o phpOracle, dur time.Duration, hosts coopHosts) {
	tmp := t.TempDir()
	root := hosts.php
	const coll = "pages"
	o.runPHP(t, phpScript("doc_setup.php"), root, coll)
	m := startMount(t, hosts.b, hosts.mountFlags...)
	dir := m.path(coll)

	phpWriters := []string{"p1", "p2"}
	mountWriters := []string{"m1", "m2"}
	const cliWriter = "c1"
	u := newDocUniverse(t, slices.Concat(phpWriters, mountWriters, []string{cliWriter}), 5, 4)

	deadline := time.Now().Add(dur)
	var php []*groupProc
	for i, w := range phpWriters {
		ids, _ := json.Marshal(map[string][]string{"own": u.own[w], "shared": u.shared})
		idFile := filepath.Join(tmp, w+"-ids.json")
		writeFile(t, idFile, string(ids))
		php = append(php, startGroup(t, dur+time.Minute, o.env(), "php", phpScript("doc_writer.php"),
			root, coll, w, fmt.Sprint(dur.Seconds()), fmt.Sprint(i+1), idFile, filepath.Join(tmp, w+".log")))
	}

	var goOps opLog
	var probs problems
	var seenMu sync.Mutex
	var seen []docSeen
	observe := func(s docSeen) {
		seenMu.Lock()
		defer seenMu.Unlock()
		seen = append(seen, s)
	}

	var wg sync.WaitGroup
	for wi, w := range mountWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mountWriter(t, u, w, uint64(100+wi), dir, tmp, deadline, &goOps)
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		cliDocWriter(t, u, cliWriter, hosts.b, coll, tmp, deadline, &goOps)
	}()
	readers := until(deadline, 2, func(ri, i int) {
		docRead(rand.New(rand.NewPCG(uint64(ri), uint64(i))), u, hosts.b, coll, dir, observe, &probs)
	})
	wg.Wait()
	readers.Wait()
	for _, p := range php {
		p.wait(t, time.Minute)
	}
	if t.Failed() {
		return
	}

	ops := slices.Clone(goOps.ops)
	for _, w := range phpWriters {
		ops = append(ops, readNDJSON[docOp](t, filepath.Join(tmp, w+".log"))...)
	}
	byAttempt := map[string]docOp{}
	counts := map[string][4]int{} // per writer: acknowledged, unique conflicts, create races, other failures
	for _, op := range ops {
		byAttempt[fmt.Sprintf("%s/%d", op.W, op.N)] = op
		c := counts[op.W]
		switch {
		case op.OK:
			c[0]++
		case isUniqueRefusal(op):
			c[1]++
		case isCreateRace(op):
			c[2]++
		case isMvVanishedTarget(op, ops):
			// coreutils mv's own race, not the mount's (shown with strace,
			// see isMvVanishedTarget): counted like a create race.
			c[2]++
			t.Logf("MV VANISHED TARGET: %s %d %s %s: %s", op.W, op.N, op.Op, op.ID, op.Err)
		case strings.Contains(op.Err, "Could not read equality index"):
			// The PHP library's own race, not the mount's: is_file() is
			// answered from PHP's stat cache, which still holds an index
			// file another process (PHP or the mount, as storh does)
			// unlinked when its last id left it; the read that follows
			// fails, before anything is written. (php -r: is_file(f);
			// rm f in another process; is_file(f) is still true.)
			c[3]++
			t.Logf("PHP STAT CACHE RACE: %s %d %s %s: %s", op.W, op.N, op.Op, op.ID, op.Err)
		case hosts.slow && strings.HasPrefix(op.W, "p") && strings.Contains(op.Err, "Could not create storage directory"):
			// The gluster client's, not the mount's: PHP tolerates mkdir's
			// "already exists" by asking is_dir() again (on a local disk
			// that answers true: php -r), but PHP's gluster client can
			// still answer the bucket directory another host just made
			// from its negative lookup cache. Seen once in the write
			// storm; the put stored nothing and said so.
			c[3]++
			t.Logf("GLUSTER NEGATIVE CACHE: %s %d %s %s: %s", op.W, op.N, op.Op, op.ID, op.Err)
		default:
			c[3]++
			probs.add("a write failed for a reason other than a unique conflict", "%s %d %s %s via %s: %s", op.W, op.N, op.Op, op.ID, op.How, op.Err)
		}
		counts[op.W] = c
	}
	// STORHFS_COOP_DUMP=FILE keeps every op (JSON) for a failure's analysis.
	if d := os.Getenv("STORHFS_COOP_DUMP"); d != "" {
		b, _ := json.Marshal(ops)
		os.WriteFile(d, b, 0o644)
	}
	t.Logf("writes per writer (acknowledged, refused: unique conflicts, create races; other failures): %v; reads: %d", counts, len(seen))
	refused := 0
	for _, c := range counts {
		refused += c[1]
	}
	switch {
	case refused == 0 && hosts.slow:
		t.Logf("no write was refused as a unique conflict in this short run")
	case refused == 0:
		t.Errorf("no write was refused as a unique conflict: the scenario did not exercise the unique index")
	}

	// Every read during the run showed a version some write stored.
	// Without OPEN (--no-open) a reader's descriptor does not hold the
	// stored file: any change of the record during the read may show, or
	// fail the read (fusefs/nodewrites.go), and an outside change counts as
	// one until the watcher has seen it (README, "Mounting": the kernel
	// reads the record by its old node until then), so the window of a
	// write stays open for watcherLag after it returned.
	const watcherLag = int64(2 * time.Second)
	creating := func(id string, t0, t1 int64) bool {
		return slices.ContainsFunc(ops, func(op docOp) bool {
			inPlace := op.How == "cat >" || op.How == "cp"
			end := op.T1
			if noOpen {
				end += watcherLag
			}
			return op.ID == id && (inPlace || noOpen) && op.T0 <= t1 && t0 <= end
		})
	}
	for _, s := range seen {
		checkDocSeen(s, byAttempt, creating, &probs)
	}

	// The final tree, judged per id; no unique value twice.
	final := map[string]map[string]any{}
	slugs := map[string][]string{}
	for id := range u.all {
		b, err := os.ReadFile(storedPath(root, coll, id))
		if os.IsNotExist(err) {
			continue
		}
		mustOK(t, err)
		rec, err := parseRecord(b, id)
		if err != nil {
			probs.add("a stored record is not well-formed", "%s: %v: %s", id, err, b)
			continue
		}
		final[id] = rec
		slug, _ := rec["slug"].(string)
		slugs[slug] = append(slugs[slug], id)
	}
	for slug, ids := range slugs {
		if len(ids) > 1 {
			probs.add("a unique value is held by two records", "slug %q: %v", slug, ids)
		}
	}
	opsByID := map[string][]docOp{}
	for _, op := range ops {
		opsByID[op.ID] = append(opsByID[op.ID], op)
	}
	for id := range u.all {
		judgeDocID(id, opsByID[id], final[id], &probs)
	}
	// The mount shows the final tree too: at once for what was written
	// through it (what you write is what cat shows afterwards), and within
	// the kernel's 1 s caches for what PHP and storhfs put wrote on ROOT.
	for id := range u.all {
		want, err := os.ReadFile(storedPath(root, coll, id))
		got, gerr := os.ReadFile(filepath.Join(dir, id+".jsonc"))
		if (err == nil) == (gerr == nil) && string(got) == string(want) {
			continue
		}
		var lastBy string
		if ops := opsByID[id]; len(ops) > 0 {
			last := slices.MaxFunc(ops, func(a, b docOp) int { return cmp.Compare(a.T1, b.T1) })
			lastBy = fmt.Sprintf("%s/%d via %s", last.W, last.N, last.How)
		}
		// What PHP and storhfs put wrote on ROOT shows within the kernel's
		// 1 s caches: poll a while (bounded) before calling it a mismatch.
		start, agreed := time.Now(), false
		for !agreed && time.Since(start) < 3*time.Second {
			time.Sleep(100 * time.Millisecond)
			got, gerr = os.ReadFile(filepath.Join(dir, id+".jsonc"))
			agreed = (err == nil) == (gerr == nil) && string(got) == string(want)
		}
		if !agreed {
			t.Errorf("the mount disagrees with ROOT after the run: %s (last written by %s, still after %v): mount %q (%v), ROOT %q (%v)",
				id, lastBy, time.Since(start).Round(100*time.Millisecond), got, gerr, want, err)
		}
	}
	probs.report(t)
	mustOK(t, m.stop())
	o.verifyPHP(t, root, coll, "doc")
	verifyGo(t, hosts.b, coll, "doc")
}

// mountWriter replaces and deletes records through the mount until the
// deadline, logging each attempt.
func mountWriter(t *testing.T, u docUniverse, w string, seed uint64, dir, tmp string, deadline time.Time, log *opLog) {
	r := rand.New(rand.NewPCG(seed, 7))
	// compact: own records whose stored content is the one-line text this
	// writer last stored (sed rewrites only those; nobody else writes them).
	compact := map[string]string{}
	src := filepath.Join(tmp, w+".src")
	for n := 1; time.Now().Before(deadline); n++ {
		id := u.pick(r, w)
		rec := filepath.Join(dir, id+".jsonc")
		op := docOp{W: w, N: n, ID: id, Op: "put"}
		d := newDocData(r, w, n)
		op.Data = d.asMap()
		pretty := r.IntN(3) == 0
		text := recordText(id, d, pretty)
		if err := os.WriteFile(src, []byte(text), 0o644); err != nil {
			t.Error(err)
			return
		}
		var out string
		var err error
		switch k := r.IntN(10); {
		case k < 2:
			op.Op, op.Data, op.How = "delete", nil, "rm -f"
			out, err, op.T0, op.T1 = coopCmd(nil, "rm", "-f", rec)
		case k < 4:
			op.How = "cat >"
			out, err, op.T0, op.T1 = coopCmd(nil, "sh", "-c", `cat "$1" > "$2"`, "sh", src, rec)
		case k < 6:
			op.How = "cp"
			out, err, op.T0, op.T1 = coopCmd(nil, "cp", src, rec)
		case k < 8 && compact[id] != "" && !pretty:
			op.How = "sed -i"
			out, err, op.T0, op.T1 = coopCmd(nil, "sed", "-i", "s/^.*$/"+strings.TrimSuffix(text, "\n")+"/", rec)
		default:
			op.How = "mv from a scratch name"
			scratch := rec + "." + w + ".tmp"
			out, err, op.T0, op.T1 = coopCmd(nil, "sh", "-c", `cat "$1" > "$2" && mv "$2" "$3"`, "sh", src, scratch, rec)
			if err != nil {
				coopCmd(nil, "rm", "-f", scratch)
			}
		}
		op.OK = err == nil
		if err != nil {
			op.Err = fmt.Sprintf("%v: %s", err, out)
		}
		if slices.Contains(u.own[w], id) && op.OK {
			compact[id] = ""
			if op.Op == "put" && !pretty {
				compact[id] = text
			}
		}
		log.add(op)
	}
}

// cliDocWriter puts and deletes records with `storhfs put/delete` on ROOT.
func cliDocWriter(t *testing.T, u docUniverse, w, root, coll, tmp string, deadline time.Time, log *opLog) {
	r := rand.New(rand.NewPCG(99, 7))
	for n := 1; time.Now().Before(deadline); n++ {
		id := u.pick(r, w)
		op := docOp{W: w, N: n, ID: id, Op: "put", How: "storhfs put"}
		var out string
		var err error
		if r.IntN(4) == 0 {
			op.Op, op.How = "delete", "storhfs delete"
			out, err, op.T0, op.T1 = coopCmd(nil, storhfsBin, "delete", root, coll, id)
			// Deleting an absent record reports it; the record is absent
			// all the same, which is what a delete acknowledges.
			if err != nil && strings.Contains(out, "not found") {
				err = nil
			}
		} else {
			d := newDocData(r, w, n)
			op.Data = d.asMap()
			out, err, op.T0, op.T1 = coopCmd([]byte(recordText(id, d, r.IntN(2) == 0)), storhfsBin, "put", root, coll, id)
		}
		op.OK = err == nil
		if err != nil {
			op.Err = fmt.Sprintf("%v: %s", err, out)
		}
		log.add(op)
	}
}

// scratchName is a name the mount shows besides records while the writers
// run: their scratch files (mv's source, sed -i's temp file).
var scratchName = regexp.MustCompile(`^(sed[A-Za-z0-9]{6}|[0-9a-f-]{36}\.jsonc\.m[0-9]\.tmp)$`)

// docRead is one random read through the mount or storhfs get.
func docRead(r *rand.Rand, u docUniverse, root, coll, dir string, observe func(docSeen), probs *problems) {
	id := u.anyID(r)
	rec := filepath.Join(dir, id+".jsonc")
	knownName := func(how, name string) {
		if id, ok := strings.CutSuffix(name, ".jsonc"); ok && u.all[id] {
			return
		}
		if !scratchName.MatchString(name) {
			probs.add("a listing shows a name no writer made", "%s: %q", how, name)
		}
	}
	switch r.IntN(5) {
	case 0:
		out, err, _, _ := coopCmd(nil, "ls", dir)
		if err != nil {
			probs.add("ls of the collection failed", "%v: %s", err, out)
			return
		}
		for _, name := range strings.Fields(out) {
			knownName("ls", name)
		}
	case 1:
		out, err, t0, t1 := coopCmd(nil, "cat", rec)
		if err == nil {
			observe(docSeen{how: "cat", id: id, content: out, t0: t0, t1: t1})
		} else if !strings.Contains(out, "No such file") {
			observe(docSeen{how: "cat", id: id, failed: fmt.Sprintf("%v: %s", err, out), t0: t0, t1: t1})
		}
	case 2:
		out, err, t0, t1 := coopCmd(nil, "jq", "-c", ".data", rec)
		if err == nil {
			observe(docSeen{how: "jq", id: id, content: out, dataOnly: true, t0: t0, t1: t1})
		} else if !strings.Contains(out, "No such file") {
			observe(docSeen{how: "jq", id: id, failed: fmt.Sprintf("%v: %s", err, out), t0: t0, t1: t1})
		}
	case 3:
		kind := fmt.Sprintf(`"kind": ?"k%d"`, r.IntN(5))
		out, _, t0, t1 := coopCmd(nil, "grep", "-rlE", kind, dir)
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			switch {
			case line == "":
			case strings.HasPrefix(line, "grep: "):
				// Without OPEN a record replaced during the run may fail
				// its read (fusefs/record.go, readStored): judged as a
				// read of that record over the whole grep.
				path, _, _ := strings.Cut(strings.TrimPrefix(line, "grep: "), ": ")
				if id, ok := strings.CutSuffix(filepath.Base(path), ".jsonc"); ok && noOpen && strings.Contains(line, "Stale file handle") {
					observe(docSeen{how: "grep -r", id: id, failed: line, t0: t0, t1: t1})
				} else if !strings.Contains(line, "No such file") {
					probs.add("grep -r through the mount failed", "%s", line)
				}
			default:
				knownName("grep -rl", filepath.Base(line))
			}
		}
	case 4:
		out, err, t0, t1 := coopCmd(nil, storhfsBin, "get", root, coll, id)
		if err == nil {
			observe(docSeen{how: "storhfs get", id: id, content: out, t0: t0, t1: t1})
		} else if !strings.Contains(out, "not found") {
			probs.add("storhfs get failed", "%s: %v: %s", id, err, out)
		}
	}
}

// parseRecord checks a record file (exactly "id" and an object "data",
// the id being want) and returns its data.
func parseRecord(b []byte, want string) (map[string]any, error) {
	var rec map[string]json.RawMessage
	if err := json.Unmarshal(b, &rec); err != nil {
		return nil, err
	}
	var id string
	if err := json.Unmarshal(rec["id"], &id); err != nil || id != want || len(rec) != 2 {
		return nil, fmt.Errorf("want exactly id %q and data", want)
	}
	var data map[string]any
	if err := json.Unmarshal(rec["data"], &data); err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	return data, nil
}

// attemptOf is the writer's op that wrote data (by its w and n).
func attemptOf(data map[string]any, byAttempt map[string]docOp) (docOp, bool) {
	n, _ := data["n"].(float64)
	op, ok := byAttempt[fmt.Sprintf("%v/%d", data["w"], int(n))]
	return op, ok
}

// checkDocSeen: a read shows exactly the data of one put on that id (never
// a torn one or another record's), an acknowledged one, except that a read
// through the mount may show a write in progress (the mount shows unsaved
// content to readers, as a file system shows written, unflushed data)
// that is refused afterwards, while that write runs. A record being
// written in place through the mount (creating: a `cat >` or `cp` of that
// id overlapping the read; with handles only a new record shows that) is
// read as written so far, possibly empty or cut short, like any file being
// written (README, "Writing"), and so may fail to read or parse. storhfs get
// reads ROOT, which only ever holds stored content.
func checkDocSeen(s docSeen, byAttempt map[string]docOp, creating func(id string, t0, t1 int64) bool, probs *problems) {
	if s.failed != "" {
		if !creating(s.id, s.t0, s.t1) {
			probs.add(s.how+" of a record failed", "%s: %s", s.id, s.failed)
		}
		return
	}
	var data map[string]any
	var err error
	if s.dataOnly {
		err = json.Unmarshal([]byte(s.content), &data)
	} else {
		data, err = parseRecord([]byte(s.content), s.id)
	}
	if err != nil {
		if s.how != "storhfs get" && creating(s.id, s.t0, s.t1) {
			return
		}
		probs.add("a read showed a record that is not well-formed", "%s %s: %v: %q", s.how, s.id, err, s.content)
		return
	}
	op, ok := attemptOf(data, byAttempt)
	switch {
	case !ok || op.Op != "put" || op.ID != s.id || !reflect.DeepEqual(op.Data, data):
		probs.add("a read showed content no writer put on that id", "%s %s: %q", s.how, s.id, s.content)
	case !op.OK && (s.how == "storhfs get" || s.t1 < op.T0 || op.T1 < s.t0):
		probs.add("a read showed a refused write", "%s %s at [%d, %d]: %q (refused at [%d, %d]: %s)", s.how, s.id, s.t0, s.t1, s.content, op.T0, op.T1, op.Err)
	}
}

// judgeDocID checks the final state of one id (see TestCoopDocStore).
func judgeDocID(id string, ops []docOp, final map[string]any, probs *problems) {
	var acked []docOp
	for _, op := range ops {
		if op.OK {
			acked = append(acked, op)
		}
	}
	var candidates []docOp
	for _, a := range acked {
		if !slices.ContainsFunc(acked, func(b docOp) bool { return b.T0 > a.T1 }) {
			candidates = append(candidates, a)
		}
	}
	describe := func() string {
		var s []string
		for _, c := range candidates {
			s = append(s, fmt.Sprintf("%s/%d %s", c.W, c.N, c.Op))
		}
		return strings.Join(s, ", ")
	}
	if final == nil {
		if len(acked) > 0 && !slices.ContainsFunc(candidates, func(c docOp) bool { return c.Op == "delete" }) {
			probs.add("an acknowledged write is lost (the record is absent)", "%s: the last acknowledged ops were %s", id, describe())
		}
		return
	}
	for _, c := range candidates {
		if c.Op == "put" && reflect.DeepEqual(c.Data, final) {
			return
		}
	}
	probs.add("a record does not hold its last acknowledged content", "%s holds %v/%v; the last acknowledged ops were %s", id, final["w"], final["n"], describe())
}

// isCreateRace: a mount writer created a new record with O_EXCL (cp does
// when the target is missing) and another writer stored the record before
// the close: the close fails with EEXIST and stores nothing.
func isCreateRace(op docOp) bool {
	return !strings.HasPrefix(op.How, "storhfs") && strings.Contains(op.Err, "File exists")
}

// isMvVanishedTarget: `mv scratch rec` met rec as present, then as
// missing, and GNU mv (9.1, here) misreports that. Traced with strace:
// renameat2(scratch, rec, RENAME_NOREPLACE) fails with EEXIST, mv's lstat
// of rec fails with ENOENT, and mv, still holding EEXIST from the rename,
// judges the stat buffer that lstat never filled: "cannot overwrite
// directory ... with non-directory", with no system call in between.
// Nothing is stored or lost: the scratch file keeps the content.
//
// Two ways to get there, both seen (the op dump, STORHFS_COOP_DUMP): the
// name went in between (another writer's delete, or another mount writer's
// create refused for a unique slug: a refused create leaves no name), or
// the kernel still held the name as missing from before another process
// stored the record (an outside change, shown within outsideChangeWindow;
// the rename's EEXIST makes the mount drop that entry at once:
// collectionNode.shownMissing, but mv's next call can come first). So the
// case counts only when another writer's operation on the record is that
// close in time; otherwise the mount showed a stored record as missing, and
// the test fails.
func isMvVanishedTarget(op docOp, ops []docOp) bool {
	if op.How != "mv from a scratch name" || !strings.Contains(op.Err, "cannot overwrite directory") {
		return false
	}
	return slices.ContainsFunc(ops, func(d docOp) bool {
		if d.ID != op.ID || d.W == op.W || d.T0 >= op.T1 {
			return false
		}
		switch {
		case d.Op == "delete" && d.OK, d.Op == "put" && !d.OK:
			return d.T1 > op.T0
		case d.Op == "put" && !strings.HasPrefix(d.W, "m"): // PHP (p*) or the CLI (c1)
			return d.T1 > op.T0-int64(outsideChangeWindow)
		}
		return false
	})
}

// outsideChangeWindow is how soon the mount shows a change made outside it
// (the watcher's promise, issue 14).
const outsideChangeWindow = 100 * time.Millisecond

// isUniqueRefusal: the write was refused because its slug is taken.
func isUniqueRefusal(op docOp) bool {
	if strings.Contains(op.Err, "Unique index violation") { // PHP, storhfs put
		return true
	}
	// Through the mount: close(2) or rename(2) fails with EINVAL.
	// mv reports EINVAL from rename(2) as "to a subdirectory of itself".
	return !strings.HasPrefix(op.How, "storhfs") &&
		(strings.Contains(op.Err, "Invalid argument") || strings.Contains(op.Err, "to a subdirectory of itself"))
}
