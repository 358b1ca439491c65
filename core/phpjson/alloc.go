package phpjson

// Small arrays are allocated together with their member storage: one
// allocation instead of three (the Array, its keys, its values). The slices
// point into the same block, so appends beyond the capacity move them out.
type (
	array1 struct {
		a Array
		k [1]Key
		v [1]Value
	}
	array2 struct {
		a Array
		k [2]Key
		v [2]Value
	}
	array4 struct {
		a Array
		k [4]Key
		v [4]Value
	}
	array8 struct {
		a Array
		k [8]Key
		v [8]Value
	}
)

// allocArray returns an empty array with capacity for at least n members.
func allocArray(n int) *Array {
	switch {
	case n == 0:
		return &Array{}
	case n == 1:
		b := &array1{}
		b.a.keys, b.a.vals = b.k[:0], b.v[:0]
		return &b.a
	case n == 2:
		b := &array2{}
		b.a.keys, b.a.vals = b.k[:0], b.v[:0]
		return &b.a
	case n <= 4:
		b := &array4{}
		b.a.keys, b.a.vals = b.k[:0:n], b.v[:0:n]
		return &b.a
	case n <= 8:
		b := &array8{}
		b.a.keys, b.a.vals = b.k[:0:n], b.v[:0:n]
		return &b.a
	}
	return &Array{keys: make([]Key, 0, n), vals: make([]Value, 0, n)}
}
