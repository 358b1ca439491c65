package phpjson

// Kind is the PHP type of a Value.
type Kind uint8

const (
	KindInvalid Kind = iota // not a Value (some other Go type)
	KindNull
	KindBool
	KindInt
	KindFloat
	KindString
	KindArray
)

var kindNames = [...]string{"invalid", "null", "bool", "int", "float", "string", "array"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "invalid"
}

// TypeOf returns the PHP type of v.
func TypeOf(v Value) Kind {
	switch v.(type) {
	case nil:
		return KindNull
	case bool:
		return KindBool
	case int64:
		return KindInt
	case float64:
		return KindFloat
	case string:
		return KindString
	case *Array:
		return KindArray
	}
	return KindInvalid
}

// IsScalar reports PHP is_scalar(v): bool, int, float or string (not null).
func IsScalar(v Value) bool {
	switch v.(type) {
	case bool, int64, float64, string:
		return true
	}
	return false
}

// IsNumber reports whether v is an int or a float.
func IsNumber(v Value) bool {
	switch v.(type) {
	case int64, float64:
		return true
	}
	return false
}

// Depth returns how many arrays are nested in v: 0 for a scalar, 1 for an
// array of scalars (or an empty array). PHP's decoder reads a document only
// if Depth < its depth limit (511 levels at the default 512); its encoder
// writes Depth <= 512. Iterative, so any nesting is safe.
func Depth(v Value) int {
	type pos struct {
		a     *Array
		i     int
		depth int
	}
	root, ok := v.(*Array)
	if !ok {
		return 0
	}
	deepest := 1
	stack := []pos{{a: root, depth: 1}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.i >= top.a.Len() {
			stack = stack[:len(stack)-1]
			continue
		}
		child, ok := top.a.vals[top.i].(*Array)
		top.i++
		if ok {
			d := top.depth + 1
			deepest = max(deepest, d)
			stack = append(stack, pos{a: child, depth: d})
		}
	}
	return deepest
}
