package difftest

import (
	"fmt"

	"github.com/storhfs/storhfs/core/guard"
)

const logColl = "events"

// logGen writes SegmentedLog sequences: puts, batches and deletes rolling
// small segments, streams and queries, compaction and retention, torn or
// corrupt lines planted with fs_append while closed, and reopen.
type logGen struct {
	*gen
	open     obj  // the open op, repeated on every reopen
	plain    bool // no partition: segment paths are known
	compacts int  // compactions of this instance (one per instance keeps the token normalisation unique)
	seq      []string
	spent    int
	// unreadable: a line PHP cannot decode may be in a segment (data
	// 511-512 deep written, or a deeper line planted).
	unreadable bool
}

// QuirkLogCountSubstring is the corpus tag (README 8) of a count() whose
// single eq condition PHP pre-filters by a raw substring of each line: it
// never decodes a line without the substring, so a line it cannot decode
// fails our count only. The generator tags such counts once a sequence
// may hold an undecodable line.
const QuirkLogCountSubstring = "log-count-substring"

// QuirkLogCountState tags a count() with a cursor and no condition on a
// log that may hold an undecodable line: PHP counts the live ids above
// the cursor in its state index without reading a line; we scan from the
// cursor (our state index keeps no ids in its sequential mode) and fail
// on such a line.
const QuirkLogCountState = "log-count-state"

// Log returns the op lines of one SegmentedLog sequence of about n ops.
func Log(seed uint64, n int) []string {
	g := &logGen{gen: newGen("log", seed)}
	g.open = o("op", "open", "collection", logColl,
		"max_segment_bytes", pick(g, 256, 300, 512, 1024, 4096),
		"sparse_index_interval", pick(g, 1, 2, 3, 8, 64))
	g.plain = true
	if g.chance(0.15) {
		g.plain = false
		g.open = g.open.with("partition", pick(g, "daily", "monthly")).
			with("partition_timestamp_ms", g.baseMs+g.r.Int64N(3*86_400_000))
	}
	g.reopen(false)
	for len(g.ops) < n {
		switch k := g.intn(100); {
		case k < 28:
			g.put()
		case k < 34:
			g.emit(o("op", "delete", "collection", logColl, "id", g.someID()))
		case k < 44:
			g.batch()
		case k < 56:
			g.emit(o("op", "stream", "collection", logColl, "query", g.streamQuery()))
		case k < 64:
			build := g.queryBuild()
			op := o("op", "query", "collection", logColl, "build", build, "call", pick(g, "get", "first", "count"))
			switch {
			case !g.unreadable || op[len(op)-1].val != "count":
			case hasStep(build, "where"):
				op = op.with("quirk", QuirkLogCountSubstring)
			case hasStep(build, "cursor"):
				op = op.with("quirk", QuirkLogCountState)
			}
			g.emit(op)
		case k < 68:
			g.emit(o("op", "get", "collection", logColl, "id", g.someID()))
		case k < 73:
			if g.compacts == 0 {
				g.compacts++
				if g.chance(0.5) {
					g.emit(o("op", "compact", "collection", logColl))
				} else {
					g.emit(o("op", "retain", "collection", logColl, "older_than_ms", g.tsOf(g.intn(g.nextK+1))))
				}
			}
		case k < 81:
			g.emit(o("op", pick(g, "stats", "verify", "health", "repair", "recover"), "collection", logColl))
		case k < 90:
			if g.plain {
				g.plant()
			}
		default:
			g.reopen(true)
		}
	}
	g.emit(o("op", "verify", "collection", logColl))
	g.emit(o("op", "close", "collection", logColl))
	return g.ops
}

func (g *logGen) reopen(close bool) {
	if close {
		g.emit(o("op", "close", "collection", logColl))
	}
	g.seq = g.seq[:0]
	for range idSeqLen {
		g.seq = append(g.seq, g.newID())
	}
	g.spent = 0
	g.compacts = 0
	g.emit(g.open.with("id_sequence", append([]string(nil), g.seq...)))
}

func (g *logGen) data(deep bool) any {
	var d any = o("type", pick(g, "page.saved", "user.login", "job"), "n", g.between(0, 20))
	switch g.intn(12) {
	case 0:
		d = o("0", "numeric key", "keep", 1) // top-level numeric keys are dropped on read
	case 1:
		d = []any{"a list"}
	case 2:
		d = o("v", g.smallValue(), "s", g.word())
	}
	if deep {
		d = o("deep", g.logDeep())
	}
	return d
}

func (g *logGen) put() {
	deep := g.chance(0.12)
	if g.chance(0.1) && g.spent < idSeqBudget {
		g.spent++
		g.emit(o("op", "put", "collection", logColl, "data", g.data(deep)))
		return
	}
	id := g.newID()
	if g.chance(0.3) {
		id = g.someID()
	}
	g.emit(o("op", "put", "collection", logColl, "id", id, "data", g.data(deep)))
}

// batch is an appendMany or appendStream, sometimes with one bad member.
func (g *logGen) batch() {
	n := g.between(1, 5)
	badAt := -1
	if g.chance(0.35) {
		badAt = g.intn(n)
	}
	var rows []any
	for i := range n {
		switch {
		case i == badAt:
			rows = append(rows, pick[any](g,
				o("id", "bad", "data", o("n", 1)),
				o("id", g.newID(), "data", o("deep", g.logDeep())),
				o("id", g.newID(), "data", o("f", raw("1e400")))))
		case g.chance(0.15) && g.spent < idSeqBudget:
			g.spent++
			rows = append(rows, o("data", g.data(false)))
		default:
			id := g.newID()
			if g.chance(0.2) {
				id = g.knownID()
			}
			rows = append(rows, o("id", id, "data", g.data(false)))
		}
	}
	g.emit(o("op", pick(g, "appendMany", "appendStream"), "collection", logColl, "rows", rows))
}

func (g *logGen) streamQuery() obj {
	q := obj{}
	if g.chance(0.2) {
		q = q.with("after", g.knownID())
	}
	if g.chance(0.2) {
		q = q.with("from_ms", g.tsOf(g.intn(g.nextK+1)))
	}
	if g.chance(0.15) {
		q = q.with("until_ms", g.tsOf(g.intn(g.nextK+1)))
	}
	if g.chance(0.3) {
		q = q.with("where_equal", []any{[]any{pick(g, "type", "n"), pick[any](g, "job", "page.saved", g.between(0, 20), "3")}})
	}
	if g.chance(0.3) {
		q = q.with("limit", g.between(1, 4))
	}
	if g.chance(0.3) {
		q = q.with("continue_on_error", true)
	}
	return q
}

func (g *logGen) queryBuild() []any {
	var steps []any
	for range g.between(0, 2) {
		f := pick(g, "type", "n", "s", "nope")
		v := pick[any](g, "job", "user.login", g.between(0, 20), "3", nil)
		switch op := pick(g, "eq", "eq", "neq", "gt", "lte", "in", "exists", "missing", "prefix"); op {
		case "in":
			steps = append(steps, o("where", []any{f, op, []any{v, g.between(0, 20)}}))
		case "exists", "missing":
			steps = append(steps, o("where", []any{f, op}))
		case "prefix":
			steps = append(steps, o("where", []any{f, op, pick(g, "j", "page", "")}))
		default:
			steps = append(steps, o("where", []any{f, op, v}))
		}
	}
	if g.chance(0.3) {
		steps = append(steps, o("orderBy", []any{pick(g, "n", "type"), pick(g, "asc", "desc")}))
	}
	if g.chance(0.3) {
		steps = append(steps, o("limit", g.between(1, 4)))
	}
	if g.chance(0.1) {
		steps = append(steps, o("cursor", g.knownID()))
	}
	return steps
}

// plant closes the log, appends a torn, corrupt or deep line to one of
// the first segments (sealed or active), and reopens it.
func (g *logGen) plant() {
	g.emit(o("op", "close", "collection", logColl))
	seg := fmt.Sprintf("%s/segments/seg-%06d.ndjson", logColl, g.between(1, 2))
	var text string
	switch g.intn(5) {
	case 0:
		text = `57` + "\t" + `0badf00d` + "\t" + `{"op":"put","id":"` // torn: no LF
	case 1:
		text = "12\tdeadbeef\t{\"op\":\"put\"\n"
	case 2:
		d := g.between(507, 512) // data 508-513 deep: from readable to past PHP's limit
		g.unreadable = g.unreadable || d+1 >= 511
		env := encode(o("op", "put", "id", g.newID(), "data", o("deep", nested(d, "1", false))))
		text = string(guardLine(env))
	case 3:
		env := encode(o("op", "put", "id", g.newID(), "data", o("n", 1)))
		text = string(guardLine(env)) + "garbage"
	default:
		env := encode(o("op", "delete", "id", g.knownID()))
		text = string(guardLine(env))
	}
	g.emit(o("op", "fs_append", "path", seg, "base64", b64(text)))
	g.reopen(false)
}

// guardLine frames json as a segment line or queue event (LEN TAB XXH32 TAB json LF).
func guardLine(json string) []byte { return guard.Append(nil, []byte(json)) }

// logDeep is a deep value for a record's data. Data 511 or 512 deep is
// PHP's unreadable window: the line's envelope is then 512 or 513 deep,
// past json_decode's 511 levels, yet put (511) or a batch (512) writes it.
func (g *logGen) logDeep() raw {
	v, depth := g.deep()
	g.unreadable = g.unreadable || depth+1 >= 511
	return v
}
