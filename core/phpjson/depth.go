package phpjson

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
