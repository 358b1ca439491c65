package queue

import "github.com/storhfs/storhfs/core/phpjson"

// equal reports whether two states agree on everything PHP's verify()
// compares: payloads (strict PHP equality), pending set and effective order,
// processing with claimed_at, done with completed_at.
func (s *state) equal(o *state) bool {
	if len(s.jobs) != len(o.jobs) || s.pending.n != o.pending.n ||
		s.processing.n != o.processing.n || s.done.n != o.done.n {
		return false
	}
	for id, j := range s.jobs {
		k := o.jobs[id]
		if k == nil || j.state != k.state || j.at != k.at || j.payload.present() != k.payload.present() {
			return false
		}
		if j.payload.val != nil && k.payload.val != nil && !phpjson.Identical(j.payload.val, k.payload.val) {
			return false
		}
	}
	for a, b := s.pending.head, o.pending.head; a != nil; a, b = a.next, b.next {
		if b == nil || a.id != b.id {
			return false
		}
	}
	return true
}
