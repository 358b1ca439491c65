package main

import (
	"storhfs/core/docstore"
	"storhfs/fusefs"
)

// docStores is the mount's DocStore backend: the real engine.
type docStores struct{}

var _ fusefs.DocStoreBackend = docStores{}

func (docStores) IsCollection(dir string) bool { return docstore.IsCollection(dir) }

func (docStores) Open(root, collection string) (fusefs.RecordStore, error) {
	return docstore.Open(root, collection, docstore.Options{})
}

func (docStores) Create(root, collection string) error { return docstore.Create(root, collection) }

func (docStores) RemoveEmpty(root, collection string) error {
	return docstore.RemoveEmpty(root, collection)
}
