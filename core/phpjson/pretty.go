package phpjson

// EncodePretty is Encode with JSON_PRETTY_PRINT: members on their own lines,
// indented 4 spaces per level, "key": value, empty arrays as []. No trailing
// newline (PHP's json_encode adds none; EncodeJSONCObject adds it).
func EncodePretty(v Value) ([]byte, error) {
	return AppendEncodePretty(make([]byte, 0, 256), v)
}

// AppendEncodePretty appends EncodePretty(v) to dst. On error dst is
// returned unchanged.
func AppendEncodePretty(dst []byte, v Value) ([]byte, error) {
	e := encoder{maxDepth: DefaultDepth, pretty: true}
	return e.encode(dst, v)
}
