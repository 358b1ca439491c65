package docstore

import (
	"fmt"
	"log"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/storhfs/storhfs/core/docindex"
)

// recoverFromDeadWriters runs when Open found the markers of writers that
// died (kill -9, crash, power loss) in this collection. Such a writer may
// have died between a record write and its index updates (docs/format/docstore.md §7),
// leaving index entries that disagree with the records, and mid-write of
// an index file, leaving its temp. Under the collection write lock (so no
// live writer, PHP or storhfs, is mid-update and the check sees the truth):
//
//  1. delete the orphaned index temps (fsutil.SweepIndexTemps);
//  2. verify every index of the collection against the records. This is
//     O(records): it reads every record file once, which is why it runs
//     only after a dead marker was found, never on a normal open. Which
//     index a dead writer damaged cannot be known cheaply (a marker says
//     nothing about what the writer did), so "affected" is the whole
//     collection the marker was found in;
//  3. log each drifted index, and unless repair is off, rebuild just those
//     indexes as reindex would (docindex.RebuildIndexes: the same bytes),
//     so PHP's indexed queries are right again.
//
// Failures are logged, not returned: the store stays usable, and verify or
// repair can be run by hand. A collection without indexes and without
// index temps logs nothing.
func (s *Store) recoverFromDeadWriters(dead []string, repair bool, logger *log.Logger) {
	if logger == nil {
		logger = log.New(os.Stderr, "storhfs: ", log.LstdFlags)
	}
	writers := strings.Join(dead, ", ")
	err := s.withWriteLock(func() error {
		if swept := s.hosts.SweepIndexTemps(s.dir); len(swept) > 0 {
			logger.Printf("%s: removed %d index temp file(s) of dead writer(s) %s", s.dir, len(swept), writers)
		}
		if !s.idx.Active() {
			return nil
		}
		// The check holds every record's index identities at once (about
		// 200 MB for 100,000 records): hand that back to the OS at once
		// instead of letting a long-lived mount keep it.
		defer debug.FreeOSMemory()
		start := time.Now()
		rep, err := s.idx.Verify(s.recordSource())
		if err != nil {
			return fmt.Errorf("check the indexes: %w", err)
		}
		logger.Printf("%s: checked the indexes after dead writer(s) %s in %v: %d drifted",
			s.dir, writers, time.Since(start).Round(time.Millisecond), len(rep.Drift))
		if len(rep.Drift) == 0 && rep.OK() {
			return nil
		}
		for _, d := range rep.Drift {
			logger.Printf("%s: index drift: %s", s.dir, d)
		}
		if !repair {
			logger.Printf("%s: not repaired (repair is off); run `storhfs reindex` or `storhfs repair`", s.dir)
			return nil
		}
		return s.rebuildDriftedLocked(rep.Drift, logger)
	})
	if err != nil {
		logger.Printf("%s: after dead writer(s) %s: %v; run `storhfs verify` and `storhfs repair`", s.dir, writers, err)
	}
}

// rebuildDriftedLocked rebuilds the drifted indexes (all of them when
// Verify found problems it could not pin on one index). Under the lock.
func (s *Store) rebuildDriftedLocked(drift []docindex.Drift, logger *log.Logger) error {
	start := time.Now()
	if len(drift) == 0 {
		if _, err := s.reindexLocked(); err != nil {
			return fmt.Errorf("reindex: %w", err)
		}
		logger.Printf("%s: reindexed every index in %v", s.dir, time.Since(start).Round(time.Millisecond))
		return nil
	}
	refs := make([]docindex.IndexRef, len(drift))
	for i, d := range drift {
		refs[i] = d.Index
	}
	if _, err := s.idx.RebuildIndexes(s.recordSource(), refs); err != nil {
		return fmt.Errorf("rebuild %d drifted index(es): %w", len(refs), err)
	}
	logger.Printf("%s: rebuilt %d drifted index(es) in %v", s.dir, len(refs), time.Since(start).Round(time.Millisecond))
	return nil
}
