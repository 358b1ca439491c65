package difftest

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"slices"
)

// gen is the state shared by the three engine generators: a seeded
// random source (the same seed always gives the same ops), the op lines
// so far, and a supply of distinct UUIDv7 ids.
type gen struct {
	r      *rand.Rand
	ops    []string
	baseMs int64 // timestamp of id number 0
	nextK  int   // ids handed out so far
	ids    []string
}

func newGen(engine string, seed uint64) *gen {
	var salt uint64
	for _, c := range engine {
		salt = salt*131 + uint64(c)
	}
	r := rand.New(rand.NewPCG(seed, salt))
	return &gen{r: r, baseMs: 1_700_000_000_000 + r.Int64N(100_000_000_000)}
}

// emit appends one op line.
func (g *gen) emit(op obj) { g.ops = append(g.ops, encode(op)) }

// chance is true with probability p.
func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func (g *gen) intn(n int) int { return g.r.IntN(n) }

// between returns an int in [lo, hi].
func (g *gen) between(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

func pick[T any](g interface{ intn(int) int }, xs ...T) T { return xs[g.intn(len(xs))] }

// newID returns a fresh lowercase UUIDv7 whose timestamp is baseMs plus
// one second per id handed out, so id order is creation order.
func (g *gen) newID() string {
	ms := g.tsOf(g.nextK)
	g.nextK++
	var b [10]byte
	for i := range b {
		b[i] = byte(g.r.IntN(256))
	}
	id := fmt.Sprintf("%08x-%04x-%02x%02x-%02x%02x-%x",
		ms>>16, ms&0xffff, 0x70|b[0]&0x0f, b[1], 0x80|b[2]&0x3f, b[3], b[4:])
	g.ids = append(g.ids, id)
	return id
}

// tsOf is the timestamp (ms) of the k-th id.
func (g *gen) tsOf(k int) int64 { return g.baseMs + int64(k)*1000 }

// knownID returns an id handed out before (a fresh one when there is none).
func (g *gen) knownID() string {
	if len(g.ids) == 0 {
		return g.newID()
	}
	return g.ids[g.r.IntN(len(g.ids))]
}

// someID is mostly a known id, sometimes a fresh one, sometimes one that
// is not a valid UUIDv7 or an upper-case spelling of a known one.
func (g *gen) someID() string {
	switch n := g.intn(20); {
	case n < 13:
		return g.knownID()
	case n < 17:
		return g.newID()
	case n < 18:
		return upper(g.knownID())
	default:
		// Not "": our executors read a missing id and "" alike (the Go API's
		// "generate one"), while PHP's put(data, '') fails.
		return pick(g, "not-a-uuid", "018f0000-0000-6000-8000-000000000000")
	}
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'f' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

func (g *gen) word() string {
	const letters = "abcdefghijklmnopqrstuvwxyz"
	n := g.between(3, 7)
	b := make([]byte, n)
	for i := range b {
		b[i] = letters[g.intn(len(letters))]
	}
	return string(b)
}

// scalar is a JSON scalar of a random type, with the spellings PHP's
// encoder treats specially (zero fractions, -0.0, big ints, unicode).
func (g *gen) scalar() any {
	return pick[any](g, g.between(-5, 30), g.word(), 1.5, 2.0, -0.0, true, false, nil,
		"Grüße/√", "line\nbreak\u2028", int64(9007199254740993), 1e25, "", "10")
}

// smallValue is a scalar, or a short list or object of scalars.
func (g *gen) smallValue() any {
	switch g.intn(6) {
	case 0:
		return []any{g.scalar(), g.scalar()}
	case 1:
		return o("x", g.scalar(), "y", g.word())
	default:
		return g.scalar()
	}
}

// deep returns a value nested around PHP's 512 limit, and its depth
// (arrays and objects open at its innermost point): with the levels its
// container adds, a record holding it sits just below, at or just past
// the levels json_encode and json_decode accept.
func (g *gen) deep() (raw, int) {
	d := g.between(505, 514)
	leaf := pick(g, "1", `"x"`, "[]")
	depth := d
	if leaf == "[]" {
		depth++
	}
	return nested(d, leaf, g.chance(0.3)), depth
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// remove deletes the first s from xs.
func remove(xs []string, s string) []string {
	if i := slices.Index(xs, s); i >= 0 {
		return slices.Delete(xs, i, i+1)
	}
	return xs
}

// deepRaw is deep without its depth.
func (g *gen) deepRaw() raw {
	v, _ := g.deep()
	return v
}
