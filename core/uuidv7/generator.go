package uuidv7

import (
	"crypto/rand"
	"fmt"
	"io"
	"sync"
	"time"
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
	e, err := g.nextEntropy(ms)
	g.mu.Unlock()
	if err != nil {
		return "", err
	}
	var b [TextLen]byte
	putText(b[:], ms, e)
	return string(b[:]), nil
}

// nextEntropy advances the monotonic state to millisecond ms and returns
// the entropy of the next id (PHP generate step 2). g.mu must be held.
func (g *Generator) nextEntropy(ms int64) ([10]byte, error) {
	if ms == g.lastTs && g.hasEntropy {
		for i := 9; i >= 0; i-- {
			g.entropy[i]++
			if g.entropy[i] != 0 {
				break
			}
		}
		return g.entropy, nil
	}
	if _, err := io.ReadFull(g.random, g.entropy[:]); err != nil {
		g.hasEntropy = false
		return [10]byte{}, fmt.Errorf("uuidv7: read entropy: %w", err)
	}
	g.lastTs = ms
	g.hasEntropy = true
	return g.entropy, nil
}
