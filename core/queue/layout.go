package queue

import "github.com/storhfs/storhfs/core/fsutil"

// LogName is the queue's one file of guarded event lines, in its
// directory (docs/format/queue.md).
const LogName = logName

const logName = "queue.log"

// IsCollection reports whether dir holds a Queue (a queue.log file). It
// creates nothing.
func IsCollection(dir string) bool {
	fi, err := fsutil.Stat(dir + "/" + logName)
	return err == nil && fi.Mode().IsRegular()
}
