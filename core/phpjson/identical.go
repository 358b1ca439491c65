package phpjson

// Identical reports PHP a === b: same type and value. Ints never equal
// floats; floats compare numerically (0.0 === -0.0, NaN !== NaN); strings
// bytewise; arrays need the same keys in the same order with identical
// values (so {} === [] and key order matters). A nil *Array is empty.
func Identical(a, b Value) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case int64:
		y, ok := b.(int64)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case *Array:
		y, ok := b.(*Array)
		return ok && identicalArrays(x, y)
	}
	return false
}

func identicalArrays(x, y *Array) bool {
	if x.Len() != y.Len() {
		return false
	}
	if x == y || x.Len() == 0 {
		return true
	}
	for i := range x.keys {
		if x.keys[i] != y.keys[i] || !Identical(x.vals[i], y.vals[i]) {
			return false
		}
	}
	return true
}
