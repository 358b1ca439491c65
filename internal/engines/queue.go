package engines

import (
	"github.com/storhfs/storhfs/core/queue"
	"github.com/storhfs/storhfs/fusefs"
)

// Queues is the mount's Queue backend.
type Queues struct{}

var (
	_ fusefs.QueueBackend  = Queues{}
	_ fusefs.QueueStore    = queueDir("")
	_ fusefs.QueueSnapshot = (*queueSnapshot)(nil)
)

func (Queues) IsCollection(dir string) bool      { return queue.IsCollection(dir) }
func (Queues) Markers() []string                 { return []string{queue.LogName} }
func (Queues) Open(dir string) fusefs.QueueStore { return queueDir(dir) }

// queueDir is one queue directory.
type queueDir string

func (d queueDir) Dir() string       { return string(d) }
func (d queueDir) StateFile() string { return queue.LogName }

// SnapshotAfter replays only what was appended to queue.log since prev
// when it can (queue.ReadSnapshotAfter); events without a timestamp get
// the time of reading.
func (d queueDir) SnapshotAfter(prev fusefs.QueueSnapshot) (fusefs.QueueSnapshot, error) {
	var base *queue.Snapshot
	if p, ok := prev.(*queueSnapshot); ok {
		base = p.Snapshot
	}
	snap, err := queue.ReadSnapshotAfter(base, string(d), nil)
	if err != nil {
		return nil, err
	}
	return &queueSnapshot{snap}, nil
}

// queueSnapshot is a queue snapshot; it holds queue.log open until Close.
type queueSnapshot struct{ *queue.Snapshot }

// views maps the mount's views to the engine's.
var views = [...]queue.View{
	fusefs.QueuePending:    queue.ViewPending,
	fusefs.QueueProcessing: queue.ViewProcessing,
	fusefs.QueueDone:       queue.ViewDone,
	fusefs.QueueEvents:     queue.ViewEvents,
}

func (s *queueSnapshot) ViewSize(v fusefs.QueueView) (int64, error) {
	return s.Snapshot.ViewSize(views[v])
}

func (s *queueSnapshot) ReadAt(v fusefs.QueueView, p []byte, off int64) (int, error) {
	return s.Snapshot.ReadAt(views[v], p, off)
}

// EventsExtend is false for a prev of another backend.
func (s *queueSnapshot) EventsExtend(prev fusefs.QueueSnapshot) bool {
	p, ok := prev.(*queueSnapshot)
	return ok && s.Snapshot.EventsExtend(p.Snapshot)
}
