package fusefs

import (
	"time"

	"golang.org/x/sys/unix"

	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/shard"
)

// pollCollection polls a DocStore collection's buckets.
//
// data/ is listed again only when its own stamp moved (a bucket came or
// went) or was racy: an idle collection costs 1 + 256 stats a poll.
func (p *poller) pollCollection(dir, rel string, announce bool) {
	data := shard.DataDir(dir)
	f, err := fsutil.Open(data)
	if err != nil {
		return
	}
	defer f.Close()
	fd := int(f.Fd())
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return
	}
	p.visited[data] = true
	self, now := stampOfUnix(&st), time.Now()
	known, ok := p.dataDirs[data]
	if !ok || known.self != self || known.racy {
		p.closeKept(known)
		entries, _ := f.ReadDir(-1)
		known = &dataDirPoll{self: self, racy: isRacy(self, now), buckets: map[string]int{}}
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			known.buckets[e.Name()] = -1
			if p.keptFDs < p.maxKeptFDs {
				if bfd, err := fsutil.OpenAt(fd, e.Name(), unix.O_RDONLY|unix.O_DIRECTORY, 0); err == nil {
					known.buckets[e.Name()] = bfd
					p.keptFDs++
				}
			}
		}
		p.dataDirs[data] = known
	}
	for name, bfd := range known.buckets {
		var bst unix.Stat_t
		var err error
		if bfd >= 0 {
			err = unix.Fstat(bfd, &bst)
		} else {
			err = unix.Fstatat(fd, name, &bst, unix.AT_SYMLINK_NOFOLLOW)
		}
		if err == nil && bst.Mode&unix.S_IFMT == unix.S_IFDIR {
			p.pollBucket(data+"/"+name, stampOfUnix(&bst), rel, announce)
		}
	}
}

// dataDirPoll is the last listing of a collection's data/, with its
// buckets kept open: fstat(2) of an open directory is one GETATTR on a
// FUSE or network file system, a stat by name a LOOKUP as well (entry
// caches are off there). A bucket removed or replaced moves data/'s
// stamp, which lists and opens them again.
//
// The poller keeps at most maxKeptFDs descriptors open in all (keptFDBudget);
// the buckets of collections beyond are stat-ed by name (-1).
type dataDirPoll struct {
	self    stamp
	racy    bool
	buckets map[string]int // name -> open directory descriptor, or -1
}

// closeKept closes d's kept descriptors (nil: nothing).
func (p *poller) closeKept(d *dataDirPoll) {
	if d == nil {
		return
	}
	for _, fd := range d.buckets {
		if fd >= 0 {
			unix.Close(fd)
			p.keptFDs--
		}
	}
}

// keptFDBudget is how many bucket directories a poller may keep open: a
// quarter of the process's descriptor limit, at most 4096 (16 full
// collections), so the mount's own opens never run out.
func keptFDBudget() int {
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &lim) != nil {
		return 0
	}
	return int(min(lim.Cur/4, 4096))
}

// pollBucket reads a bucket again when its stamp (cur) moved or was racy,
// and announces the records whose stamps differ.
func (p *poller) pollBucket(bucket string, cur stamp, rel string, announce bool) {
	p.visited[bucket] = true
	now := time.Now()
	b := p.buckets[bucket]
	switch {
	case b == nil:
		b = &bucketPoll{dir: cur, racy: isRacy(cur, now)}
		p.buckets[bucket] = b
		if !announce {
			if b.racy { // it may change unseen: its records are the baseline
				b.files = recordStamps(bucket)
			}
			return
		}
		// A bucket that appeared between polls: everything in it is new.
	case b.dir == cur && !b.racy:
		return
	}
	b.dir, b.racy = cur, isRacy(cur, now)
	files := recordStamps(bucket)
	for name := range changedNames(b.files, files) {
		p.queue(announce, invalidation{mount: rel, name: name, record: bucket + "/" + name})
	}
	b.files = files
}

// recordStamps stamps the record files of a bucket.
func recordStamps(bucket string) map[string]stamp {
	return dirStamps(bucket, func(name string, mode uint32) bool {
		_, ok := recordID(name)
		return ok && mode == unix.S_IFREG
	})
}
