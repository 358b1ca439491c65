package uuidv7

import (
	"crypto/rand"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/google/uuid"
)

// Generator reproduces PHP UuidV7::generate: within one millisecond the 10
// entropy bytes e0..e9 are incremented as a big-endian 80-bit counter (all
// ff wraps to all 00); a different millisecond (also a clock going
// backwards) draws 10 fresh random bytes. Safe for concurrent use.
type Generator struct {
	nowMs  func() int64
	random io.Reader

	mu         sync.Mutex
	lastTs     int64 // -1 until the first id
	entropy    [10]byte
	hasEntropy bool
}

// NewGenerator returns a generator reading the clock from nowMs and entropy
// from random; nil means wall clock milliseconds / crypto/rand.
func NewGenerator(nowMs func() int64, random io.Reader) *Generator {
	if nowMs == nil {
		nowMs = func() int64 { return time.Now().UnixMilli() }
	}
	if random == nil {
		random = rand.Reader
	}
	return &Generator{nowMs: nowMs, random: random, lastTs: -1}
}

// newGeneratorWithState returns a generator whose last call was at lastTs
// with the given entropy (test vectors of spec 11.1).
func newGeneratorWithState(nowMs func() int64, random io.Reader, lastTs int64, entropy [10]byte) *Generator {
	g := NewGenerator(nowMs, random)
	g.lastTs = lastTs
	g.entropy = entropy
	g.hasEntropy = true
	return g
}

// New returns the next lowercase id for the current millisecond.
func (g *Generator) New() (string, error) {
	return g.NewAt(g.nowMs())
}

// NewAt returns the next lowercase id for millisecond ms (shares the
// monotonic state with New, like PHP's generate(ts)).
func (g *Generator) NewAt(ms int64) (string, error) {
	if ms < 0 || ms > MaxTimestampMs {
		return "", ErrTimestampRange
	}
	g.mu.Lock()
	if ms == g.lastTs && g.hasEntropy {
		for i := 9; i >= 0; i-- {
			g.entropy[i]++
			if g.entropy[i] != 0 {
				break
			}
		}
	} else {
		if _, err := io.ReadFull(g.random, g.entropy[:]); err != nil {
			g.hasEntropy = false
			g.mu.Unlock()
			return "", fmt.Errorf("uuidv7: read entropy: %w", err)
		}
		g.lastTs = ms
		g.hasEntropy = true
	}
	e := g.entropy
	g.mu.Unlock()
	return format(ms, e), nil
}

// format renders ts and entropy as the 36-byte lowercase id: the 48-bit
// timestamp, version 7 over e0's low nibble, e1, variant 10 over e2's low six
// bits, then e3..e9 (spec 11.1). google/uuid prints the 16 bytes.
func format(ts int64, e [10]byte) string {
	var u uuid.UUID
	for i := 5; i >= 0; i-- {
		u[i] = byte(ts)
		ts >>= 8
	}
	u[6] = 0x70 | e[0]&0x0f
	u[7] = e[1]
	u[8] = 0x80 | e[2]&0x3f
	copy(u[9:], e[3:])
	return u.String()
}
