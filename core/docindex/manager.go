package docindex

import (
	"slices"
	"sync"

	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/core/phpjson"
)

// RecordSource yields every record of the collection (id order). An error
// returned by yield stops the walk and is returned by the source.
type RecordSource func(yield func(id string, data *phpjson.Array) error) error

// Manager is the index manager of one collection directory. It caches the
// manifest's definitions; the store re-reads them with Reload under the
// write lock before every mutation (docs/format/indexes.md §13). Safe for concurrent use:
// lookups may run while another goroutine reloads.
type Manager struct {
	paths paths

	mu      sync.RWMutex
	defs    []Definition // sorted by field name
	loadErr error        // manifest unreadable/undecodable: every use fails
	pending []Definition // Define()d since the last Sync, merged by Sync

	limits rebuildLimits // PHP's; tests lower them to force flushes
}

// Open returns the manager of collectionDir and reads its manifest. The
// store's writer identity is accepted for API stability but not needed:
// index files use the non-PID temp names of docs/format/docstore.md §4.2, as PHP does. A
// missing manifest means no indexes. A broken manifest does not fail Open
// (PHP only throws when the definitions are needed): it is reported by Err,
// Reload and every operation that needs the definitions.
func Open(collectionDir string, _ *fsutil.Writer) (*Manager, error) {
	m := &Manager{paths: paths{collection: collectionDir}, limits: rebuildLimits{eqFlushIDs, rangeChunkEntries}}
	m.defs, m.loadErr = readManifest(m.paths.manifest())
	return m, nil
}

// Reload re-reads the manifest (call it under the write lock before a
// mutation) and returns the manifest error, if any.
func (m *Manager) Reload() error {
	defs, err := readManifest(m.paths.manifest())
	m.mu.Lock()
	defer m.mu.Unlock()
	m.defs, m.loadErr = defs, err
	return err
}

// Err is the error of the last manifest read (nil when it was fine or
// absent).
func (m *Manager) Err() error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.loadErr
}

// Active reports whether indexes are maintained: the manifest has at least
// one definition. A broken manifest counts as active, so that writes reach
// the definitions and fail like PHP's.
func (m *Manager) Active() bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.loadErr != nil || len(m.defs) > 0
}

// Definitions returns the definitions, sorted by field name (manifest
// order). The slice is a copy.
func (m *Manager) Definitions() []Definition {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return append([]Definition(nil), m.defs...)
}

// Definition returns the definition of field (none while the manifest is
// broken).
func (m *Manager) Definition(field string) (Definition, bool) {
	d, ok, _ := m.lookupDefinition(field)
	return d, ok
}

// definitions returns the cached definitions or the manifest error.
func (m *Manager) definitions() ([]Definition, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.defs, m.loadErr
}

// Define queues definitions for the next Sync, flags OR-ed with what is
// already queued or in the manifest (PHP define_field). A name that is
// empty after trimming whitespace fails with "Index field cannot be empty."
// and queues nothing from defs.
func (m *Manager) Define(defs []Definition) error {
	for _, d := range defs {
		if err := checkFieldName(d.Field); err != nil {
			return err
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pending = mergeDefinitions(m.pending, defs)
	return nil
}

// Sync writes the manifest: the current definitions (re-read from disk)
// plus everything Defined since the last Sync. It always rewrites the
// manifest (4.2); when the definitions changed and rebuild is true it then
// rebuilds every index from src (7.9). sync(false) leaves new indexes empty
// (a PHP quirk). Call under the write lock.
func (m *Manager) Sync(rebuild bool, src RecordSource) error {
	before, err := readManifest(m.paths.manifest())
	if err != nil {
		return err
	}
	m.mu.Lock()
	after := mergeDefinitions(before, m.pending)
	m.mu.Unlock()

	content, err := encodeManifest(after)
	if err != nil {
		return err
	}
	if err := fsutil.WriteAtomic(m.paths.manifest(), content); err != nil {
		return err
	}
	m.mu.Lock()
	m.defs, m.loadErr, m.pending = after, nil, nil
	m.mu.Unlock()

	if rebuild && !slices.Equal(before, after) {
		_, _, err := m.Rebuild(src)
		return err
	}
	return nil
}
