package docindex

import "strconv"

// paths names every index file of one collection directory C. Paths are
// built by plain concatenation, as PHP does, so error texts match PHP's.
type paths struct{ collection string }

func (p paths) indexes() string  { return p.collection + "/.storh/indexes" }
func (p paths) manifest() string { return p.indexes() + "/manifest.jsonc" }
func (p paths) entries() string  { return p.indexes() + "/entries" }

func (p paths) eqDir(field string) string { return p.entries() + "/eq/" + FieldKey(field) }

func (p paths) eqFile(field, vk string) string { return p.eqDir(field) + "/" + vk + ".jsonc" }

func (p paths) compoundDir(left, right string) string {
	return p.entries() + "/compound/" + FieldKey(left) + "-" + FieldKey(right)
}

func (p paths) compoundFile(left, right, ck string) string {
	return p.compoundDir(left, right) + "/" + ck + ".jsonc"
}

func (p paths) rangeDir() string              { return p.entries() + "/range" }
func (p paths) rangeMain(field string) string { return p.rangeDir() + "/" + FieldKey(field) + ".jsonl" }
func (p paths) rangeIdx(field string) string {
	return p.rangeDir() + "/" + FieldKey(field) + ".idx.jsonc"
}
func (p paths) rangeDelta(field string) string {
	return p.rangeDir() + "/" + FieldKey(field) + ".delta.jsonl"
}
func (p paths) chunksDir() string { return p.rangeDir() + "/.chunks" }
func (p paths) chunk(field string, n int) string {
	return p.chunksDir() + "/" + FieldKey(field) + "-" + strconv.Itoa(n) + ".jsonl"
}
