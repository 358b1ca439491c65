package phpjson

import "maps"

// Clone returns a deep copy of a: nested arrays are copied, scalars (strings
// included, which Go never mutates) are shared. Changing the copy never
// changes a, which is what PHP's value semantics give every array. A nil
// *Array clones to nil.
func (a *Array) Clone() *Array {
	if a == nil {
		return nil
	}
	c := &Array{keys: append([]Key(nil), a.keys...), vals: make([]Value, len(a.vals)), nextInt: a.nextInt}
	for i, v := range a.vals {
		if sub, ok := v.(*Array); ok {
			v = sub.Clone()
		}
		c.vals[i] = v
	}
	if a.index != nil {
		c.index = maps.Clone(a.index)
	}
	return c
}
