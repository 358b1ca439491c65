package fusefs

import (
	"context"
	"errors"
	"sync"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// collectionDirHandle lists a collection: every record in id order (streamed
// from the store's bucket walk, never materialised), then the scratch files.
// Entry offsets are positions (1-based); seeking restarts the walk and skips.
type collectionDirHandle struct {
	c     *collectionNode
	store RecordStore

	walk    *idWalk
	batch   []string
	pos     uint64 // entries returned so far
	scratch []fuse.DirEntry
	inTail  bool // records exhausted; listing scratch files
}

var (
	_ fs.FileReaddirenter = (*collectionDirHandle)(nil)
	_ fs.FileSeekdirer    = (*collectionDirHandle)(nil)
	_ fs.FileReleasedirer = (*collectionDirHandle)(nil)
)

// Readdirent returns the next entry (go-fuse serialises calls per handle).
func (d *collectionDirHandle) Readdirent(ctx context.Context) (*fuse.DirEntry, syscall.Errno) {
	if !d.inTail {
		id, ok, err := d.nextID()
		if err != nil {
			d.c.m.log.Printf("list %s: %v", d.c.rel, err)
			return nil, errnoOf(err, syscall.EIO)
		}
		if ok {
			d.pos++
			return &fuse.DirEntry{
				Name: id + recordExt, Mode: syscall.S_IFREG,
				Ino: recordIno(d.c.rel, id), Off: d.pos,
			}, 0
		}
		d.inTail = true
		d.scratch = d.c.scratchNames()
	}
	if len(d.scratch) == 0 {
		return nil, 0
	}
	e := d.scratch[0]
	d.scratch = d.scratch[1:]
	d.pos++
	e.Off = d.pos
	return &e, 0
}

func (d *collectionDirHandle) nextID() (string, bool, error) {
	if d.walk == nil {
		d.walk = startWalk(d.store)
	}
	if len(d.batch) == 0 {
		batch, ok := <-d.walk.batches
		if !ok {
			return "", false, d.walk.err
		}
		d.batch = batch
	}
	id := d.batch[0]
	d.batch = d.batch[1:]
	return id, true, nil
}

func (d *collectionDirHandle) Seekdir(ctx context.Context, off uint64) syscall.Errno {
	if off == d.pos {
		return 0
	}
	d.reset()
	for d.pos < off {
		e, errno := d.Readdirent(ctx)
		if errno != 0 {
			return errno
		}
		if e == nil {
			break
		}
	}
	return 0
}

func (d *collectionDirHandle) Releasedir(ctx context.Context, releaseFlags uint32) { d.reset() }

func (d *collectionDirHandle) reset() {
	if d.walk != nil {
		d.walk.stop()
	}
	d.walk, d.batch, d.pos, d.scratch, d.inTail = nil, nil, 0, nil, false
}

// idWalk runs the store's id walk in a goroutine, handing ids over in
// batches; stop ends it early. Memory held here is bounded by the channel.
type idWalk struct {
	batches chan []string
	err     error // valid once batches is closed
	done    chan struct{}
	once    sync.Once
}

const walkBatch = 256

var errWalkStopped = errors.New("walk stopped")

func startWalk(s RecordStore) *idWalk {
	w := &idWalk{batches: make(chan []string, 4), done: make(chan struct{})}
	go func() {
		defer close(w.batches)
		batch := make([]string, 0, walkBatch)
		send := func() error {
			select {
			case w.batches <- batch:
				batch = make([]string, 0, walkBatch)
				return nil
			case <-w.done:
				return errWalkStopped
			}
		}
		err := s.WalkIDs("", func(id string) error {
			batch = append(batch, id)
			if len(batch) == walkBatch {
				return send()
			}
			return nil
		})
		if err == nil && len(batch) > 0 {
			err = send()
		}
		if err != nil && !errors.Is(err, errWalkStopped) {
			w.err = err
		}
	}()
	return w
}

func (w *idWalk) stop() {
	w.once.Do(func() { close(w.done) })
}
