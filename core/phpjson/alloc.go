package phpjson

// Small arrays are allocated together with their member storage: one
// allocation instead of three (the Array, its keys, its values). The slices
// point into the same block, so appends beyond the capacity move them out.
// The classes follow small record shapes closely, because a block is
// zeroed and scanned in full however few members it holds.
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
	array3 struct {
		a Array
		k [3]Key
		v [3]Value
	}
	array4 struct {
		a Array
		k [4]Key
		v [4]Value
	}
	array5 struct {
		a Array
		k [5]Key
		v [5]Value
	}
	array6 struct {
		a Array
		k [6]Key
		v [6]Value
	}
	array8 struct {
		a Array
		k [8]Key
		v [8]Value
	}
	array12 struct {
		a Array
		k [12]Key
		v [12]Value
	}
	array16 struct {
		a Array
		k [16]Key
		v [16]Value
	}
)

// allocArray returns an empty array with capacity for at least n members.
func allocArray(n int) *Array {
	switch {
	case n == 0:
		return &Array{}
	case n == 1:
		b := &array1{}
		return withStorage(&b.a, b.k[:], b.v[:], n)
	case n == 2:
		b := &array2{}
		return withStorage(&b.a, b.k[:], b.v[:], n)
	case n == 3:
		b := &array3{}
		return withStorage(&b.a, b.k[:], b.v[:], n)
	case n == 4:
		b := &array4{}
		return withStorage(&b.a, b.k[:], b.v[:], n)
	case n == 5:
		b := &array5{}
		return withStorage(&b.a, b.k[:], b.v[:], n)
	case n == 6:
		b := &array6{}
		return withStorage(&b.a, b.k[:], b.v[:], n)
	case n <= 8:
		b := &array8{}
		return withStorage(&b.a, b.k[:], b.v[:], n)
	case n <= 12:
		b := &array12{}
		return withStorage(&b.a, b.k[:], b.v[:], n)
	case n <= 16:
		b := &array16{}
		return withStorage(&b.a, b.k[:], b.v[:], n)
	}
	return &Array{keys: make([]Key, 0, n), vals: make([]Value, 0, n)}
}

// withStorage points a's member slices at the block's arrays, with
// capacity n (appends beyond n move out of the block).
func withStorage(a *Array, k []Key, v []Value, n int) *Array {
	a.keys, a.vals = k[:0:n], v[:0:n]
	return a
}
