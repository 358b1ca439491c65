// Package engines adapts the storage engines to the interfaces the mount
// reads them through: core/seglog to fusefs.LogBackend and fusefs.LogStore,
// core/queue to fusefs.QueueBackend and fusefs.QueueStore. fusefs knows no
// log or queue format or on-disk name; these adapters translate, and add
// nothing of their own. (The DocStore backend, which also writes, lives
// with the mount command's options in cmd/storhfs.)
//
// It is a package of its own, not part of cmd/storhfs, so that tests of
// fusefs (package fusefs_test) can mount real logs and queues.
package engines
