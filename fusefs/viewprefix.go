package fusefs

import (
	"bytes"
	"errors"
	"io"
)

// extendsView reports whether the view grew only by appends from prev to
// next: prev's content is a byte prefix of next's. The replays tell it for
// the common cases (see extendsKnown); otherwise both are read.
func extendsView(prev, next viewSnap) (bool, error) {
	ps, ns := prev.stat(), next.stat()
	switch {
	case ps.key == ns.key:
		return true, nil
	case ns.size < ps.size:
		return false, nil
	case next.extendsKnown(prev):
		return true, nil
	}
	return samePrefix(prev, next, ps.size)
}

// samePrefix compares the first n bytes of two views.
func samePrefix(a, b viewSnap, n int64) (bool, error) {
	ra, err := a.newReader()
	if err != nil {
		return false, err
	}
	defer ra.Close()
	rb, err := b.newReader()
	if err != nil {
		return false, err
	}
	defer rb.Close()
	const chunk = 256 << 10
	bufA, bufB := make([]byte, chunk), make([]byte, chunk)
	for off := int64(0); off < n; {
		k := int(min(chunk, n-off))
		na, err := ra.ReadAt(bufA[:k], off)
		if na < k {
			return false, readErr(err)
		}
		nb, err := rb.ReadAt(bufB[:k], off)
		if nb < k {
			return false, readErr(err)
		}
		if !bytes.Equal(bufA[:k], bufB[:k]) {
			return false, nil
		}
		off += int64(k)
	}
	return true, nil
}

// readErr is the error of a short read: nil at the end of the content.
func readErr(err error) error {
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}
