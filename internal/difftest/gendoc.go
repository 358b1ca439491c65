package difftest

import (
	"fmt"
	"slices"
)

// DocStore sequences come in two profiles. "twin" runs every write on an
// indexed collection and on an index-free twin and every query on both,
// the indexed one with compare_with (corpus README 8: the replayer tags
// an index-path divergence, and our engine must then agree with its own
// scan); its data mixes types on purpose. "chaos" runs one indexed
// collection through unique violations, deep values, imports and exports
// that fail halfway, corrupt record files, repair and reindex, with
// well-typed indexed fields so its index paths agree with a scan.

const (
	docPages = "pages"
	docPlain = "plain"
	docCopy  = "copy"
	// idSeqLen is the id_sequence given to every open; docGen spends at
	// most idSeqBudget of it (a row without an id may take one).
	idSeqLen    = 48
	idSeqBudget = 40
)

type docGen struct {
	*gen
	twin   bool
	slugs  map[string]string // chaos: live id -> its unique "slug"
	nslug  int
	seq    []string // chaos: ids the open pages instance will generate, in order
	spent  int      // ids of seq possibly spent
	files  int      // import/export file counter
	unique bool     // chaos: slug has a unique index
	// unreadable is set when a write may have stored data 511 (put) or
	// 512 (batches, which encode data alone) levels deep: PHP writes the
	// record ({"id","data"} is 512 or 513 deep) but no fresh
	// instance can read it, while the instance that wrote it answers from
	// its memory cache; our store always reads the file. The generator
	// reopens after such a write, so both sides read the file.
	unreadable bool
	// mayCorrupt: a record file may be unreadable from here on (planted,
	// or written past the depth PHP reads back).
	mayCorrupt bool
}

// Quirk tags of DocStore ops whose result may differ from PHP's by design
// once a collection holds an unreadable record (corpus README 8; the
// engine test allows them and only logs the difference):
const (
	// QuirkStreamIDWindow: our stream() applies after/from_ms/until_ms to
	// the file names before reading (core/docstore Stream), PHP reads and
	// decodes every record file first, so an unreadable record outside
	// the window fails PHP's stream (or is in its skipped list) only.
	QuirkStreamIDWindow = "stream-id-window"
	// QuirkCountFiles: our count() without conditions or cursor counts
	// record files without reading them (core/query Counter); a fresh PHP
	// instance reads every record and fails on an unreadable one (one
	// that has them all cached counts its cache without reading, too).
	QuirkCountFiles = "count-files"
)

// Doc returns the op lines of one DocStore sequence of about n ops.
func Doc(seed uint64, n int) []string {
	g := &docGen{gen: newGen("doc", seed), slugs: map[string]string{}}
	g.twin = g.chance(0.4)
	if g.twin {
		g.twinSeq(n)
	} else {
		g.chaosSeq(n)
	}
	return g.ops
}

// ---- twin profile

func (g *docGen) both(op obj) {
	g.emit(op.with("collection", docPlain))
	g.emit(op.with("collection", docPages))
}

// twinQuery runs op on the plain twin and then on the indexed collection,
// naming the twin in compare_with.
func (g *docGen) twinQuery(op obj) {
	g.emit(op.with("collection", docPlain))
	g.emit(op.with("collection", docPages).with("compare_with", len(g.ops)-1))
}

func (g *docGen) twinSeq(n int) {
	g.both(o("op", "open"))
	g.emit(o("op", "indexes", "collection", docPages, "fields", g.indexFields()))
	for len(g.ops) < n {
		switch k := g.intn(100); {
		case k < 30:
			g.both(o("op", "put", "id", g.writeID(), "data", g.twinData()))
		case k < 36:
			g.both(o("op", "delete", "id", g.knownID()))
		case k < 42:
			rows := []any{}
			for range g.between(1, 4) {
				rows = append(rows, o("id", g.writeID(), "data", g.twinData()))
			}
			g.both(o("op", pick(g, "putMany", "putStream"), "rows", rows))
		case k < 70:
			g.twinQuery(o("op", "query", "build", g.queryBuild(true), "call", pick(g, "get", "get", "first", "count")))
		case k < 78:
			g.twinQuery(o("op", "stream", "query", g.streamQuery(true)))
		case k < 82:
			g.emit(o("op", "get", "collection", docPages, "id", g.someID()))
		case k < 86:
			g.emit(o("op", pick(g, "verify", "stats", "reindex"), "collection", docPages))
		case k < 89:
			g.emit(o("op", "indexes", "collection", docPages, "fields", g.indexFields()))
		default:
			g.both(o("op", "close"))
			g.both(o("op", "open"))
		}
	}
	g.emit(o("op", "verify", "collection", docPages))
	g.both(o("op", "close"))
}

// writeID is a fresh id, or a known one (an overwrite or a resurrection).
func (g *docGen) writeID() string {
	if g.chance(0.3) {
		return g.knownID()
	}
	return g.newID()
}

func (g *docGen) indexFields() []any {
	fields := []any{o("field", "tag"), o("field", "n", "range", true)}
	if g.chance(0.7) {
		fields = append(fields, o("field", "slug", "unique", true))
	}
	if g.chance(0.3) {
		fields = append(fields, o("field", "title"))
	}
	return fields
}

// Value pools of the twin's fields: mixed types, negatives and arrays are
// where PHP's index paths leave scan semantics.
func (g *docGen) tagValue() any { return pick[any](g, "a", "b", "c", 1, true, nil, []any{"a"}, "") }
func (g *docGen) nValue() any {
	return pick[any](g, -3, 0, 2, 5, 5, 7.5, 12, "10", "abc", nil, 2.0, -0.0)
}

func (g *docGen) twinData() obj {
	g.nslug++
	d := o("slug", fmt.Sprintf("s%03d", g.nslug))
	if g.chance(0.85) {
		d = d.with("tag", g.tagValue())
	}
	if g.chance(0.85) {
		d = d.with("n", g.nValue())
	}
	if g.chance(0.5) {
		d = d.with("title", g.word())
	}
	if g.chance(0.3) {
		d = d.with("meta", g.smallValue())
	}
	return d
}

// fieldValue is a value to compare field with: from its pool, or any.
func (g *docGen) fieldValue(field string, mixed bool) any {
	switch {
	case field == "tag" && mixed:
		return g.tagValue()
	case field == "tag":
		return pick[any](g, "a", "b", "c")
	case field == "n" && mixed:
		return g.nValue()
	case field == "n":
		return g.between(0, 50)
	case field == "slug":
		return fmt.Sprintf("s%03d", g.between(1, g.nslug+1))
	}
	return g.word()
}

// queryBuild returns builder steps (README 4.6): where clauses, groups,
// an order, a limit or a cursor.
func (g *docGen) queryBuild(mixed bool) []any {
	var steps []any
	for range g.between(0, 2) {
		steps = append(steps, g.whereStep(mixed))
	}
	if g.chance(0.15) {
		group := pick(g, "andWhere", "orWhere")
		steps = append(steps, o(group, []any{g.whereStep(mixed), g.whereStep(mixed)}))
	}
	if g.chance(0.35) {
		f := pick(g, "tag", "n", "slug", "title")
		if g.chance(0.5) {
			steps = append(steps, o("orderBy", []any{f}))
		} else {
			steps = append(steps, o("orderBy", []any{f, pick(g, "asc", "desc")}))
		}
	}
	if g.chance(0.3) {
		steps = append(steps, o("limit", g.between(1, 5)))
	}
	if g.chance(0.15) {
		steps = append(steps, o("cursor", g.knownID()))
	}
	return steps
}

func (g *docGen) whereStep(mixed bool) obj {
	f := pick(g, "tag", "tag", "n", "n", "slug", "title", "nope")
	v := func() any { return g.fieldValue(f, mixed) }
	switch op := pick(g, "eq", "eq", "neq", "gt", "gte", "lt", "lte", "in", "notIn", "between", "exists", "missing", "prefix"); op {
	case "in", "notIn":
		return o("where", []any{f, op, []any{v(), v()}})
	case "between":
		return o("where", []any{f, op, v(), v()})
	case "exists", "missing":
		return o("where", []any{f, op})
	case "prefix":
		return o("where", []any{f, op, pick(g, "s0", "a", "")})
	default:
		return o("where", []any{f, op, v()})
	}
}

// streamQuery is a stream() query (README 4.5).
func (g *docGen) streamQuery(mixed bool) obj {
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
	if g.chance(0.4) {
		f := pick(g, "tag", "n")
		q = q.with("where_equal", []any{[]any{f, g.fieldValue(f, mixed)}})
	}
	if g.chance(0.3) {
		q = q.with("limit", g.between(1, 4))
	}
	return q
}

// ---- chaos profile

func (g *docGen) open() {
	g.seq = g.seq[:0]
	for range idSeqLen {
		g.seq = append(g.seq, g.newID())
	}
	g.spent = 0
	g.emit(o("op", "open", "collection", docPages, "id_sequence", append([]string(nil), g.seq...)))
}

// generatedID is the id the next row without an id will get, or "" when
// the id_sequence budget of this instance is spent.
func (g *docGen) generatedID() (string, bool) {
	if g.spent >= idSeqBudget {
		return "", false
	}
	g.spent++
	return g.seq[g.spent-1], true
}

func (g *docGen) chaosSeq(n int) {
	g.open()
	g.unique = g.chance(0.8)
	fields := []any{o("field", "tag"), o("field", "n", "range", true)}
	if g.unique {
		fields = append(fields, o("field", "slug", "unique", true))
	}
	g.emit(o("op", "indexes", "collection", docPages, "fields", fields))
	for len(g.ops) < n {
		switch k := g.intn(100); {
		case k < 22:
			g.putOne()
		case k < 27:
			g.emit(o("op", "delete", "collection", docPages, "id", g.someID()))
		case k < 36:
			g.putBatch()
		case k < 46:
			build := g.queryBuild(false)
			op := o("op", "query", "collection", docPages, "build", build,
				"call", pick(g, "get", "first", "count", "count", "explain"))
			switch {
			case !g.mayCorrupt:
			case hasStep(build, "where", "andWhere", "orWhere"):
				// PHP's index paths read only their candidates, ours may
				// read other records (and fail on an unreadable one): both
				// leave the scan semantics, as the index-path tag says.
				op = op.with("quirk", "index-path")
			case op[len(op)-1].val == "count" && !hasStep(build, "cursor"):
				op = op.with("quirk", QuirkCountFiles)
			}
			g.emit(op)
		case k < 52:
			q := g.streamQuery(false)
			if g.chance(0.4) {
				q = q.with("continue_on_error", true)
			}
			op := o("op", "stream", "collection", docPages, "query", q)
			if g.mayCorrupt && hasKey(q, "after", "from_ms", "until_ms") {
				op = op.with("quirk", QuirkStreamIDWindow)
			}
			g.emit(op)
		case k < 56:
			g.emit(o("op", "get", "collection", docPages, "id", g.someID()))
		case k < 64:
			g.importFile()
		case k < 70:
			g.export()
		case k < 76:
			g.plantRecord()
		case k < 86:
			g.emit(o("op", pick(g, "verify", "stats", "health", "repair", "reindex", "compact"), "collection", docPages))
		default:
			g.emit(o("op", "close", "collection", docPages))
			g.open()
		}
	}
	g.emit(o("op", "verify", "collection", docPages))
	g.emit(o("op", "close", "collection", docPages))
}

// chaosData is a record's data with well-typed indexed fields and a fresh
// slug; deep gives it a value nested around PHP's 512 limit.
func (g *docGen) chaosData(deep bool) obj {
	g.nslug++
	d := o("slug", fmt.Sprintf("s%03d", g.nslug), "tag", pick(g, "a", "b", "c"), "n", g.between(0, 50))
	if g.chance(0.4) {
		d = d.with("v", g.smallValue())
	}
	if deep {
		v, depth := g.deep()
		d = d.with("deep", v)
		g.unreadable = g.unreadable || depth+1 == 511 || depth+1 == 512
	}
	return d
}

// reopenIfUnreadable closes and reopens pages after a write that may
// have stored an unreadable record (see docGen.unreadable).
func (g *docGen) reopenIfUnreadable() {
	if g.unreadable {
		g.unreadable = false
		g.mayCorrupt = true
		g.emit(o("op", "close", "collection", docPages))
		g.open()
	}
}

// liveSlug is the slug of some record believed live ("" when none).
func (g *docGen) liveSlug() string {
	for _, id := range g.ids {
		if s, ok := g.slugs[id]; ok && g.chance(0.3) {
			return s
		}
	}
	for _, s := range g.slugs {
		return s
	}
	return ""
}

// row returns one putMany/importJsonl row and the id it writes ("" when
// it is meant to fail) and its data: mostly good, sometimes with a bad
// member.
func (g *docGen) row(bad bool) (obj, string, obj) {
	if bad {
		switch g.intn(4) {
		case 0:
			return o("id", pick(g, "not-a-uuid", upper(g.newID())+"x"), "data", g.chaosData(false)), "", nil
		case 1:
			return o("id", g.newID(), "data", g.chaosData(true)), "", nil
		case 2:
			if s := g.liveSlug(); s != "" && g.unique {
				return o("id", g.newID(), "data", g.chaosData(false).with("slug", s)), "", nil
			}
		}
		return o("id", g.newID(), "data", o("f", raw("1e400"))), "", nil // Inf: not encodable
	}
	d := g.chaosData(false)
	if g.chance(0.2) {
		if id, ok := g.generatedID(); ok {
			if g.chance(0.5) {
				return o("data", d), id, d
			}
			return d, id, d // the whole row is the data
		}
	}
	id := g.writeID()
	return o("id", id, "data", d), id, d
}

func (g *docGen) noteWrite(id string, data obj) {
	for _, m := range data {
		if m.key == "slug" {
			if s, ok := m.val.(string); ok {
				g.slugs[id] = s
			}
		}
	}
}

func (g *docGen) putOne() {
	id := g.writeID()
	var data obj
	switch k := g.intn(10); {
	case k < 6:
		data = g.chaosData(false)
		g.noteWrite(id, data)
	case k < 8:
		data = g.chaosData(true)
	case k < 9:
		data = g.chaosData(false)
		if s := g.liveSlug(); s != "" {
			data = data.with("slug", s)
		}
	default:
		id = g.someID()
		data = g.chaosData(false)
	}
	if g.chance(0.1) {
		if gid, ok := g.generatedID(); ok {
			g.noteWrite(gid, data)
			g.emit(o("op", "put", "collection", docPages, "data", data))
			g.reopenIfUnreadable()
			return
		}
	}
	g.emit(o("op", "put", "collection", docPages, "id", id, "data", data))
	g.reopenIfUnreadable()
}

// putBatch is a putMany or putStream, sometimes with one bad row in the
// middle (what the rows before it leave on disk is part of the result).
func (g *docGen) putBatch() {
	n := g.between(1, 5)
	badAt := -1
	if g.chance(0.4) {
		badAt = g.intn(n)
	}
	var rows []any
	for i := range n {
		r, id, data := g.row(i == badAt)
		if id != "" && badAt < 0 {
			g.noteWrite(id, data)
		}
		rows = append(rows, r)
	}
	g.emit(o("op", pick(g, "putMany", "putStream"), "collection", docPages, "rows", rows))
	g.reopenIfUnreadable()
}

// importFile writes a JSONL file with fs_write and imports it: good rows
// of both forms, blank lines, CRLF, and sometimes one bad line halfway.
func (g *docGen) importFile() {
	g.files++
	path := fmt.Sprintf("import/i%02d.jsonl", g.files)
	n := g.between(1, 6)
	badAt := -1
	if g.chance(0.5) {
		badAt = g.intn(n)
	}
	var text string
	for i := range n {
		var line string
		if i == badAt {
			line = pick(g,
				`{"id": broken`,
				`"scalar"`,
				encode(o("id", "bad-id", "data", o("x", 1))),
				encode(o("id", g.newID(), "data", o("deep", g.deepRaw()))),
				string(nested(g.between(509, 513), "1", false)),
			)
		} else {
			r, _, _ := g.row(false)
			line = encode(r)
		}
		text += line + pick(g, "\n", "\n", "\n", "\r\n", "\n\n")
	}
	if g.chance(0.2) {
		text = text[:len(text)-1] // no final newline
	}
	g.emit(o("op", "fs_write", "path", path, "text", text))
	g.emit(o("op", "importJsonl", "collection", docPages, "path", path))
}

// export writes the collection to a JSONL file and sometimes imports that
// file into a fresh collection, reading the copy back.
func (g *docGen) export() {
	g.files++
	path := fmt.Sprintf("export/e%02d.jsonl", g.files)
	g.emit(o("op", "exportJsonl", "collection", docPages, "path", path))
	if g.chance(0.4) {
		g.emit(o("op", "open", "collection", docCopy))
		g.emit(o("op", "importJsonl", "collection", docCopy, "path", path))
		g.emit(o("op", "stream", "collection", docCopy, "query", o("continue_on_error", true)))
		g.emit(o("op", "verify", "collection", docCopy))
		g.emit(o("op", "close", "collection", docCopy))
	}
}

// plantRecord closes the collection, writes a record file as an outside
// writer would (corrupt, deep, wrong id, odd JSONC), and reopens.
func (g *docGen) plantRecord() {
	id := g.knownID()
	if g.chance(0.3) {
		id = g.newID()
	}
	var text string
	switch g.intn(7) {
	case 0:
		text = `{"id":"` + id + `","data":{"tag":"a"` // torn
	case 1:
		text = "not json at all\n"
	case 2:
		text = encode(o("id", id, "data", o("deep", nested(g.between(507, 512), "1", false)))) + "\n"
	case 3:
		text = encode(o("id", g.newID(), "data", o("tag", "b", "n", 3))) + "\n" // id of another record
	case 4:
		text = "// hand-written\n{\n  \"id\": \"" + id + "\",\n  \"data\": {\"tag\": \"c\", \"n\": 7,},\n}\n"
	case 5:
		text = encode(o("id", id, "data", "scalar")) + "\n"
	default:
		text = encode(o("id", id, "data", o("slug", "planted", "tag", "a", "n", 1))) + "\n"
	}
	g.mayCorrupt = true
	g.emit(o("op", "close", "collection", docPages))
	g.emit(o("op", "fs_write", "path", docPages+"/data/"+id[24:26]+"/"+id+".jsonc", "text", text))
	g.open()
}

// hasStep reports whether query builder steps hold a step named one of names.
func hasStep(steps []any, names ...string) bool {
	for _, st := range steps {
		if hasKey(st.(obj), names...) {
			return true
		}
	}
	return false
}

// hasKey reports whether x has a member named one of names.
func hasKey(x obj, names ...string) bool {
	for _, m := range x {
		if slices.Contains(names, m.key) {
			return true
		}
	}
	return false
}
