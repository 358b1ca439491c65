package lockedbuf

import (
	"strings"
	"sync"
	"testing"
)

// Writers and a reader run at once (go test -race checks the locking);
// every write lands whole.
func TestConcurrentWriteAndRead(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				b.Write([]byte("line\n"))
			}
		}()
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 100 {
			if s := b.String(); len(s)%len("line\n") != 0 {
				t.Errorf("read %d bytes: a write was seen in part", len(s))
			}
		}
	}()
	wg.Wait()
	<-done
	if got := strings.Count(b.String(), "line\n"); got != 400 {
		t.Errorf("%d lines, want 400", got)
	}
}
