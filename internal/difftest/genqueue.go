package difftest

import "slices"

const queueColl = "jobs"

// queueGen writes Queue sequences with a pinned, advancing clock:
// enqueues (single and batched, some batches with a bad job), claims,
// completes, failures and requeues after timeouts, purges, reopen
// (replay), and torn or foreign events appended to queue.log, both while
// open (another writer) and while closed.
type queueGen struct {
	*gen
	now     int64
	pending []string // ids believed pending, in claim order
	claimed []string // ids believed claimed
	done    []string
	seq     []string
	spent   int
}

// Queue returns the op lines of one Queue sequence of about n ops.
func Queue(seed uint64, n int) []string {
	g := &queueGen{gen: newGen("queue", seed)}
	g.now = g.baseMs / 1000
	g.reopen(false)
	for len(g.ops) < n {
		switch k := g.intn(100); {
		case k < 24:
			g.enqueue()
		case k < 32:
			g.enqueueMany()
		case k < 48:
			if g.chance(0.6) {
				g.op(o("op", "claim"))
				g.claimNext(1)
			} else {
				lim := g.between(0, 4)
				g.op(o("op", "claimMany", "limit", lim))
				g.claimNext(lim)
			}
		case k < 60:
			g.complete()
		case k < 64:
			g.tick(g.between(1, 120))
			g.op(o("op", "requeue_timed_out", "timeout_s", pick(g, 0, 5, 30, 60, 300)))
			g.pending = append(g.pending, g.claimed...)
			g.claimed = nil
		case k < 67:
			g.op(o("op", "purgeDone", "older_than_s", pick(g, 0, 10, 1000)))
		case k < 77:
			g.op(o("op", pick(g, "counts", "stats", "verify", "health", "counts")))
		case k < 80:
			if g.chance(0.5) {
				g.op(o("op", "repair"))
			} else {
				g.op(o("op", "repair", "timeout_s", pick(g, 0, 10, 100)))
			}
		case k < 88:
			g.plant()
		default:
			g.reopen(true)
		}
		if g.chance(0.3) {
			g.tick(g.between(0, 20))
		}
	}
	g.op(o("op", "verify"))
	g.op(o("op", "counts"))
	g.emit(o("op", "close", "collection", queueColl))
	return g.ops
}

func (g *queueGen) tick(s int) { g.now += int64(s) }

// op emits a queue op with the collection and the pinned clock.
func (g *queueGen) op(x obj) {
	g.emit(x.with("collection", queueColl).with("now", g.now))
}

func (g *queueGen) reopen(close bool) {
	if close {
		g.emit(o("op", "close", "collection", queueColl))
	}
	g.seq = g.seq[:0]
	for range idSeqLen {
		g.seq = append(g.seq, g.newID())
	}
	g.spent = 0
	g.op(o("op", "open", "id_sequence", append([]string(nil), g.seq...)))
}

func (g *queueGen) payload() any {
	return pick[any](g, o("task", pick(g, "mail", "render", "index"), "n", g.between(0, 9)),
		o("v", g.smallValue()), []any{}, []any{1, 2})
}

// jobID is a fresh id, sometimes a known one (re-enqueue), an invalid one
// or an upper-case spelling.
func (g *queueGen) jobID() string {
	if g.chance(0.75) {
		return g.newID()
	}
	return g.someID()
}

// QuirkDeepRefused tags an op whose payload PHP writes although it can
// never read the event back (payload 511 or 512 levels deep: the event
// adds one, json_decode reads 511), which our queue refuses with PHP's
// encode error instead (core/queue maxPayloadDepth). PHP's next open
// truncates that event and every later one, so the generator reopens at
// once: both sides then hold the same log again.
const QuirkDeepRefused = "deep-refused"

// refusedDepth reports whether a payload of this depth falls in that window.
func refusedDepth(payloadDepth int) bool { return payloadDepth == 511 || payloadDepth == 512 }

func (g *queueGen) enqueue() {
	if g.chance(0.1) {
		v, depth := g.deep()
		op := o("op", "enqueue", "payload", o("deep", v), "id", g.newID())
		if refusedDepth(depth + 1) {
			g.op(op.with("quirk", QuirkDeepRefused))
			g.reopen(true)
			return
		}
		g.op(op)
		return
	}
	if g.chance(0.1) && g.spent < idSeqBudget {
		g.spent++
		g.op(o("op", "enqueue", "payload", g.payload()))
		return
	}
	id := g.jobID()
	g.op(o("op", "enqueue", "payload", g.payload(), "id", id))
	g.pending = append(g.pending, id)
	if slices.Contains(g.ids[:len(g.ids)-1], id) {
		g.reopenForOrder()
	}
}

// reopenForOrder reopens the queue after an event that can leave PHP's
// live claim order different from the order its own replay (and our
// queue) gives: a live PHP instance keeps every enqueue/requeue in an
// append-only list and claims an id at its first pending entry, so a
// re-enqueued pending id, or one claimed by another writer and requeued
// later, is claimed at its old position; replay at open (and our queue)
// places it at its latest enqueue. After a reopen both agree again.
func (g *queueGen) reopenForOrder() { g.reopen(true) }

// enqueueMany batches jobs of every form (README 4.4), sometimes with one
// bad job halfway.
func (g *queueGen) enqueueMany() {
	n := g.between(1, 5)
	badAt := -1
	if g.chance(0.35) {
		badAt = g.intn(n)
	}
	var jobs []any
	refused := false
	for i := range n {
		switch {
		case i == badAt:
			v, depth := g.deep()
			if refusedDepth(depth + 1) {
				// PHP writes the whole batch and its next open keeps the
				// jobs before this one; we write none. Only as the first
				// job do both sides end up with the same log.
				if i > 0 {
					v = nested(520, "1", false)
				} else {
					refused = true
				}
			}
			jobs = append(jobs, pick[any](g,
				o("id", "bad", "payload", o("n", 1)),
				o("id", g.newID(), "payload", o("deep", v)),
				o("id", g.newID(), "payload", o("f", raw("1e400")))))
		case g.chance(0.15) && g.spent < idSeqBudget:
			g.spent++
			jobs = append(jobs, o("payload", g.payload()))
		default:
			id := g.newID()
			if badAt < 0 {
				g.pending = append(g.pending, id)
			}
			if g.chance(0.2) {
				jobs = append(jobs, o("id", id, "task", "the whole job is the payload"))
			} else {
				jobs = append(jobs, o("id", id, "payload", g.payload()))
			}
		}
	}
	op := o("op", "enqueueMany", "jobs", jobs)
	if refused {
		g.op(op.with("quirk", QuirkDeepRefused))
		g.reopen(true)
		return
	}
	g.op(op)
}

// claimNext moves up to n believed-pending ids to claimed.
func (g *queueGen) claimNext(n int) {
	n = min(n, len(g.pending))
	g.claimed = append(g.claimed, g.pending[:n]...)
	g.pending = g.pending[n:]
}

// complete finishes claimed jobs, or ids that are not processing.
func (g *queueGen) complete() {
	id := g.someID()
	if len(g.claimed) > 0 && g.chance(0.8) {
		id = g.claimed[g.intn(len(g.claimed))]
		g.claimed = remove(g.claimed, id)
		g.done = append(g.done, id)
	}
	if g.chance(0.25) {
		ids := []string{id, g.someID()}
		if len(g.claimed) > 0 {
			ids = append(ids, g.claimed[0])
			g.claimed = g.claimed[1:]
		}
		g.op(o("op", "completeMany", "ids", ids, "keep_done", g.chance(0.7)))
		return
	}
	if g.chance(0.3) {
		g.op(o("op", "complete", "id", id, "keep_done", false))
	} else {
		g.op(o("op", "complete", "id", id))
	}
}

// plant appends to queue.log as another writer would: a valid event, a
// torn fragment, garbage, or an event nested around PHP's depth limit;
// while the queue is open or closed (then reopened).
//
// After an invalid tail planted while the queue is open, only reads run
// until the reopen: before appending, our queue cuts an invalid tail that
// PHP would cut only at its next open (docs/format/queue.md §7,
// the hazard: PHP appends after the garbage and its next open
// then drops every event written after it). That divergence is by design
// and the generator does not provoke it.
func (g *queueGen) plant() {
	closed := g.chance(0.4)
	if closed {
		g.emit(o("op", "close", "collection", queueColl))
	}
	var text string
	valid := false
	switch g.intn(6) {
	case 0:
		id := g.newID()
		text = string(guardLine(encode(o("op", "enqueue", "id", id, "payload", o("from", "outside"), "ts", g.now))))
		g.pending = append(g.pending, id)
		valid = true
	case 1:
		text = "broken"
	case 2:
		text = "garbage\n"
	case 3:
		d := g.between(507, 512)
		text = string(guardLine(encode(o("op", "enqueue", "id", g.newID(), "payload", o("deep", nested(d, "1", false)), "ts", g.now))))
		valid = d+2 <= 511
	case 4:
		if len(g.pending) > 0 {
			text = string(guardLine(encode(o("op", "claim", "id", g.pending[0], "ts", g.now))))
		} else {
			text = string(guardLine(encode(o("op", "complete", "id", g.knownID(), "ts", g.now))))
		}
		valid = true
		defer g.reopenForOrder()
	default:
		text = string(guardLine(encode(o("op", "enqueue", "id", g.newID(), "payload", o("n", 1), "ts", g.now))))[:20]
	}
	g.emit(o("op", "fs_append", "path", queueColl+"/queue.log", "base64", b64(text)))
	if closed {
		g.reopen(false)
		return
	}
	if !valid {
		for range g.between(0, 2) {
			g.op(o("op", pick(g, "counts", "stats", "verify", "health")))
		}
		g.reopen(true)
	}
}
