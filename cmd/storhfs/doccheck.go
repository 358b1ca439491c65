package main

import (
	"fmt"

	"github.com/storhfs/storhfs/core/docstore"
	"github.com/storhfs/storhfs/core/queue"
	"github.com/storhfs/storhfs/core/seglog"
)

// checkDocTarget refuses a record command aimed at a collection that is
// not a DocStore: a log or queue would otherwise read as an empty DocStore
// (an export of nothing that reports success) or get a data/ folder of
// records beside its segments. mustExist also refuses a missing
// collection (export and get: a typo must not back up nothing).
func checkDocTarget(root, collection string, mustExist bool) error {
	dir := docstore.CollectionDir(root, collection)
	switch {
	case seglog.IsCollection(dir):
		return fmt.Errorf("%s is a SegmentedLog collection, not a DocStore: this command works on DocStore collections only", dir)
	case queue.IsCollection(dir):
		return fmt.Errorf("%s is a Queue, not a DocStore: this command works on DocStore collections only", dir)
	case mustExist && !docstore.IsCollection(dir):
		if err := symlinkRefusal(dir); err != nil {
			return err
		}
		return fmt.Errorf("Collection does not exist: %s", dir)
	}
	return nil
}
