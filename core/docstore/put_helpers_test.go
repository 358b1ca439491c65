package docstore

import (
	"os"
	"time"

	"github.com/storhfs/storhfs/core/fsutil"
)

// openTestLock takes C/.storh/write.lock through a descriptor of its own,
// as another instance would.
func openTestLock(dir string) (*fsutil.Lock, error) {
	l, err := fsutil.OpenLock(dir+"/.storh/write.lock", os.O_RDWR)
	if err != nil {
		return nil, err
	}
	return l, l.Lock()
}

func timeAfter(ms int) <-chan time.Time { return time.After(time.Duration(ms) * time.Millisecond) }
