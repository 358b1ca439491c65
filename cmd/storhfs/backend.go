package main

import (
	"errors"

	"github.com/storhfs/storhfs/core/docstore"
	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/fusefs"
)

// docStores is the mount's DocStore backend: the real engine.
type docStores struct {
	// noRepair (--no-repair): index drift found after a dead writer is
	// logged but not rebuilt (docstore.Options.NoRepair).
	noRepair bool
	// hosts: whether writers on other hosts share ROOT (--shared-storage
	// forces ManyHosts; DetectHosts asks the file system).
	hosts fsutil.Hosts
}

var _ fusefs.DocStoreBackend = docStores{}

func (docStores) IsCollection(dir string) bool { return docstore.IsCollection(dir) }

func (docStores) Markers() []string { return []string{docstore.DataDirName, docstore.StateDirName} }

// Open opens a collection for the mount; a read-only mount opens it
// read-only, so nothing is swept, unlinked or created on disk. A writable
// open that finds a dead writer's marker checks the collection's indexes
// and repairs drift (unless noRepair) before the first request is served;
// what it finds goes to stderr, the mount's log.
func (d docStores) Open(root, collection string, readOnly bool) (fusefs.RecordStore, error) {
	s, err := docstore.Open(root, collection, docstore.Options{ReadOnly: readOnly, NoRepair: d.noRepair, DirSyncErrors: true, Hosts: d.hosts})
	if err != nil {
		return nil, err
	}
	return mountStore{s}, nil
}

func (docStores) Create(root, collection string) error { return docstore.Create(root, collection) }

func (docStores) RemoveEmpty(root, collection string) error {
	return docstore.RemoveEmpty(root, collection)
}

// mountStore is a docstore.Store whose commit errors tell the mount which
// failures are content rejections (fusefs.ErrRejected, EINVAL to the
// writer) and which are internal (EIO, ENOSPC, ...).
type mountStore struct{ *docstore.Store }

func (s mountStore) PutRaw(id string, content []byte) error {
	return classifyCommit(s.Store.PutRaw(id, content))
}

func (s mountStore) PutRawNew(id string, content []byte) error {
	return classifyCommit(s.Store.PutRawNew(id, content))
}

// classifyCommit marks content rejections; the message is unchanged.
func classifyCommit(err error) error {
	if err == nil || errors.Is(err, docstore.ErrIndexDrift) {
		return err
	}
	if errors.Is(err, docstore.ErrInvalidRecord) || errors.Is(err, docstore.ErrInvalidID) ||
		errors.Is(err, docstore.ErrUniqueViolation) {
		return rejection{err}
	}
	return err
}

// rejection is a refused commit: same text, also errors.Is fusefs.ErrRejected.
type rejection struct{ err error }

func (r rejection) Error() string   { return r.err.Error() }
func (r rejection) Unwrap() []error { return []error{r.err, fusefs.ErrRejected} }
