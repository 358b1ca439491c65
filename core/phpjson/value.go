// Package phpjson reproduces the PHP value model that storh's files are made
// of: json_decode($s, true) on the way in, storh's json_encode flags
// (JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_PRESERVE_ZERO_FRACTION)
// on the way out, and storh's JSONC reader.
//
// A Value is one of: nil, bool, int64, float64, string, *Array.
// Ints and floats are never mixed up (1 and 1.0 differ everywhere in storh).
// *Array is a PHP array: an ordered map whose keys are int64 or strings that
// are not canonical int64 decimals. It encodes as a JSON list iff its keys are
// exactly 0..n-1 in order (so the empty array encodes as []).
package phpjson

import "strconv"

// Value is a decoded PHP value: nil, bool, int64, float64, string or *Array.
type Value = any

// Key is a PHP array key. String keys that spell a canonical int64 ("0",
// "-5"; not "01", "-0", "+1", "1.5") are stored as int keys, as PHP does.
type Key struct {
	str   string
	num   int64
	isInt bool
}

// IntKey returns the int key i.
func IntKey(i int64) Key { return Key{num: i, isInt: true} }

// StrKey returns the key PHP uses for the string s: an int key when s is a
// canonical int64 decimal, a string key otherwise.
func StrKey(s string) Key {
	if i, ok := canonicalInt(s); ok {
		return Key{num: i, isInt: true}
	}
	return Key{str: s}
}

// IsInt reports whether k is an int key.
func (k Key) IsInt() bool { return k.isInt }

// Int returns the int value of an int key (0 for string keys).
func (k Key) Int() int64 { return k.num }

// String returns the key as JSON object member name: the decimal form of an
// int key, the string itself otherwise.
func (k Key) String() string {
	if k.isInt {
		return strconv.FormatInt(k.num, 10)
	}
	return k.str
}

// canonicalInt reports whether s is how PHP prints some int64, and that int.
func canonicalInt(s string) (int64, bool) {
	n := len(s)
	if n == 0 || n > 20 {
		return 0, false
	}
	digits := s
	if s[0] == '-' {
		digits = s[1:]
		if digits == "" || digits == "0" {
			return 0, false // "-" and "-0" stay strings
		}
	}
	if digits[0] == '0' && len(digits) > 1 {
		return 0, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
	}
	i, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, false
	}
	return i, true
}

// Array is an ordered PHP array. The zero value is an empty array ready to use.
//
// Invariants: len(keys) == len(vals); keys are unique; index, when non-nil,
// maps every key to its position; nextInt is PHP's "next free int key"
// (one more than the largest int key ever set, at least 0).
type Array struct {
	keys    []Key
	vals    []Value
	index   map[Key]int
	nextInt int64
}

// indexThreshold is the length from which lookups go through a map.
const indexThreshold = 8

// NewArray returns an empty array with room for n members.
func NewArray(n int) *Array {
	return &Array{keys: make([]Key, 0, n), vals: make([]Value, 0, n)}
}

// NewList returns the PHP list of vals (keys 0..n-1).
func NewList(vals ...Value) *Array {
	a := NewArray(len(vals))
	for _, v := range vals {
		a.Append(v)
	}
	return a
}

// Len returns the number of members (0 for a nil *Array).
func (a *Array) Len() int {
	if a == nil {
		return 0
	}
	return len(a.keys)
}

// At returns the i-th member in order.
func (a *Array) At(i int) (Key, Value) { return a.keys[i], a.vals[i] }

// Keys returns the keys in order. The slice must not be modified.
func (a *Array) Keys() []Key { return a.keys }

// Values returns the values in order. The slice must not be modified.
func (a *Array) Values() []Value { return a.vals }

func (a *Array) find(k Key) int {
	if a.index != nil {
		if i, ok := a.index[k]; ok {
			return i
		}
		return -1
	}
	for i := range a.keys {
		if a.keys[i] == k {
			return i
		}
	}
	return -1
}

// Get returns the value stored under k.
func (a *Array) Get(k Key) (Value, bool) {
	if i := a.find(k); i >= 0 {
		return a.vals[i], true
	}
	return nil, false
}

// Lookup returns the member named field, with PHP's key normalisation
// ("0" finds index 0 of a list).
func (a *Array) Lookup(field string) (Value, bool) { return a.Get(StrKey(field)) }

// Set stores v under k. An existing key keeps its position (PHP: the last
// duplicate wins at the first one's position).
func (a *Array) Set(k Key, v Value) {
	if i := a.find(k); i >= 0 {
		a.vals[i] = v
		return
	}
	a.keys = append(a.keys, k)
	a.vals = append(a.vals, v)
	if k.isInt && k.num >= a.nextInt && k.num < 1<<63-1 {
		a.nextInt = k.num + 1
	}
	switch {
	case a.index != nil:
		a.index[k] = len(a.keys) - 1
	case len(a.keys) > indexThreshold:
		a.index = make(map[Key]int, len(a.keys)*2)
		for i, key := range a.keys {
			a.index[key] = i
		}
	}
}

// SetString stores v under the key PHP uses for name.
func (a *Array) SetString(name string, v Value) { a.Set(StrKey(name), v) }

// Append stores v under the next free int key (PHP $a[] = v).
func (a *Array) Append(v Value) { a.Set(IntKey(a.nextInt), v) }

// Delete removes k, keeping the order of the other members.
func (a *Array) Delete(k Key) {
	i := a.find(k)
	if i < 0 {
		return
	}
	a.keys = append(a.keys[:i], a.keys[i+1:]...)
	a.vals = append(a.vals[:i], a.vals[i+1:]...)
	if a.index != nil {
		delete(a.index, k)
		for j := i; j < len(a.keys); j++ {
			a.index[a.keys[j]] = j
		}
	}
}

// IsList reports whether the keys are exactly 0..n-1 in order, which is
// when PHP encodes the array as a JSON list. The empty array is a list.
func (a *Array) IsList() bool {
	for i, k := range a.keys {
		if !k.isInt || k.num != int64(i) {
			return false
		}
	}
	return true
}
