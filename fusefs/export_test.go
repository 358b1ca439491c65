package fusefs

// What package fusefs_test needs to read real logs and queues through
// their views: internal/engines, which serves them, imports fusefs, so
// fusefs's own tests cannot import it.

const RecordsView = recordsView

// ViewSource is a log's or a queue's view source.
type ViewSource struct {
	src  viewSource
	drop func()
}

func NewLogViews(s LogStore) ViewSource {
	src := newLogSource(s)
	return ViewSource{src, src.cache.drop}
}

func NewQueueViews(s QueueStore) ViewSource {
	src := newQueueSource(s)
	return ViewSource{src, src.cache.drop}
}

// Drop releases the cached snapshot.
func (s ViewSource) Drop() { s.drop() }

// Latest is view name in the latest snapshot; release it when done.
func (s ViewSource) Latest(name string) (View, error) {
	v, err := s.src.latest(name)
	return View{v}, err
}

// View is one view in one snapshot.
type View struct{ v viewSnap }

func (v View) Release()                         { v.v.release() }
func (v View) ExtendsKnown(prev View) bool      { return v.v.extendsKnown(prev.v) }
func ExtendsView(prev, next View) (bool, error) { return extendsView(prev.v, next.v) }

// Size and Key are the view's stat: its size and its snapshot's key.
func (v View) Size() int64 { return v.v.stat().size }
func (v View) Key() string { return v.v.stat().key }
