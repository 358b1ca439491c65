package fusefs

import (
	"log"
	"path"
	"sync"
)

// mountState is shared by every node of one mount.
type mountState struct {
	catalog  Catalog
	readOnly bool
	log      *log.Logger

	mu     sync.Mutex
	stores map[string]RecordStore  // open collections by rel path
	logs   map[string]*logSource   // log views by directory on disk
	queues map[string]*queueSource // queue views by directory on disk
	closed bool
}

func newMountState(c Catalog, readOnly bool, logger *log.Logger) *mountState {
	return &mountState{
		catalog: c, readOnly: readOnly, log: logger,
		stores: map[string]RecordStore{}, logs: map[string]*logSource{}, queues: map[string]*queueSource{},
	}
}

// store returns the open store of collection rel, opening it on first use.
func (m *mountState) store(rel string) (RecordStore, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.stores[rel]; ok {
		return s, nil
	}
	s, err := m.catalog.OpenDocStore(rel)
	if err != nil {
		return nil, err
	}
	m.stores[rel] = s
	return s, nil
}

// forget closes and drops the store of rel (after rmdir).
func (m *mountState) forget(rel string) {
	m.mu.Lock()
	s, ok := m.stores[rel]
	delete(m.stores, rel)
	m.mu.Unlock()
	if ok {
		if err := s.Close(); err != nil {
			m.log.Printf("close %s: %v", rel, err)
		}
	}
}

// closeAll closes every open store; called once the mount is gone.
func (m *mountState) closeAll() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for rel, s := range m.stores {
		if err := s.Close(); err != nil {
			m.log.Printf("close %s: %v", rel, err)
		}
	}
	m.stores = map[string]RecordStore{}
	for _, l := range m.logs {
		l.cache.drop()
	}
	for _, q := range m.queues {
		q.cache.drop()
	}
	m.closed = true
}

// logSource returns the shared view source of the log directory dir.
func (m *mountState) logSource(dir string) *logSource {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.logs[dir]
	if !ok {
		s = newLogSource(dir)
		m.logs[dir] = s
	}
	return s
}

// queueSource returns the shared view source of the queue directory dir.
func (m *mountState) queueSource(dir string) *queueSource {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.queues[dir]
	if !ok {
		s = newQueueSource(dir, nil)
		m.queues[dir] = s
	}
	return s
}

// notify runs a kernel cache notification outside of the current FUSE
// request: notifying from inside a handler can deadlock (fuse/server.go).
func (m *mountState) notify(fn func()) { go fn() }

func childRel(parent, name string) string {
	if parent == "" {
		return name
	}
	return path.Join(parent, name)
}
