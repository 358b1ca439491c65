package seglog

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"storhfs/core/fsutil"
	"storhfs/core/phpjson"
)

// The roll floor: only the file operations AppendMany and Compact do for
// the benchmark's 20k records (the same files created in the same
// directories, the same sizes written, the same fsyncs, stats and
// renames), with no encoding, hashing or bookkeeping. The bytes come from
// a real run made before the timer starts. "seq" does them one after the
// other, as PHP does; "overlap" overlaps them exactly as the log does (see
// roll.go and compact.go), so benchmark minus "overlap" is our own CPU and
// waiting.

// floorFile is one file of the recorded run: its name and bytes.
type floorFile struct {
	name string
	data []byte
}

// appendFloorPlan is what AppendMany writes: every sealed segment with its
// idx file and the manifest that sealed it, then the last active segment.
type appendFloorPlan struct {
	sealed    []floorFile // segments, in roll order
	idx       []floorFile // their idx files
	manifests [][]byte    // the manifest written by each roll
	active    floorFile   // the segment left active, written and fsynced last
}

// recordAppendFloor runs AppendMany once and reads back what it wrote.
func recordAppendFloor(b *testing.B) appendFloorPlan {
	b.Helper()
	root := filledLog(b)
	dir := root + "/events"
	m, err := readManifest(dir)
	if err != nil {
		b.Fatal(err)
	}
	var p appendFloorPlan
	for k, e := range m.sealed {
		p.sealed = append(p.sealed, readFloorFile(b, dir, e.file))
		p.idx = append(p.idx, readFloorFile(b, dir, indexNameFor(e.file)))
		list := phpjson.NewArray(k + 1)
		for _, s := range m.sealed[:k+1] {
			list.Append(s.obj)
		}
		doc := phpjson.NewArray(3)
		doc.SetString("nextSegment", int64(k+3))
		doc.SetString("sealed", list)
		doc.SetString("active", newActiveObj(segmentName(int64(k+2))))
		enc, err := encodeManifest(doc)
		if err != nil {
			b.Fatal(err)
		}
		p.manifests = append(p.manifests, enc)
	}
	p.active = readFloorFile(b, dir, m.activeFile())
	return p
}

func readFloorFile(b *testing.B, dir, name string) floorFile {
	b.Helper()
	data, err := os.ReadFile(dir + "/segments/" + name)
	if err != nil {
		b.Fatal(err)
	}
	return floorFile{name: name, data: data}
}

// floorOps are the raw file operations, with temp names from a counter.
type floorOps struct {
	b    *testing.B
	temp int
	mu   sync.Mutex
}

func (o *floorOps) check(err error) {
	if err != nil {
		o.b.Error(err)
	}
}

func (o *floorOps) tempName(dir, base string) string {
	o.mu.Lock()
	o.temp++
	n := o.temp
	o.mu.Unlock()
	return fmt.Sprintf("%s/.%s.%012x.tmp", dir, base, n)
}

// writeTemp is fsutil's temp file: create, write, fsync, close.
func (o *floorOps) writeTemp(dir, base string, data []byte) string {
	temp := o.tempName(dir, base)
	f, err := fsutil.OpenFile(temp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	o.check(err)
	_, err = f.Write(data)
	o.check(err)
	o.check(f.Sync())
	o.check(f.Close())
	return temp
}

// commit is rename plus the directory's fsync.
func (o *floorOps) commit(temp, dir, base string) {
	o.check(os.Rename(temp, dir+"/"+base))
	d, err := fsutil.OpenFile(dir, os.O_RDONLY, 0)
	o.check(err)
	o.check(d.Sync())
	o.check(d.Close())
}

func (o *floorOps) writeAtomic(dir, base string, data []byte) {
	o.commit(o.writeTemp(dir, base, data), dir, base)
}

// createSegment is the roll's stat of the next name and its creation.
func (o *floorOps) createSegment(segDir, name string) *os.File {
	if _, err := os.Stat(segDir + "/" + name); err == nil {
		o.b.Fatalf("%s exists", name)
	}
	f, err := fsutil.OpenFile(segDir+"/"+name, os.O_RDWR|os.O_CREATE, 0o666)
	o.check(err)
	return f
}

func (o *floorOps) writeSync(f *os.File, data []byte) {
	_, err := f.WriteAt(data, 0)
	o.check(err)
	o.check(f.Sync())
}

// appendFloor performs plan's file operations in dir, whose segments/
// holds the empty first segment f.
func (o *floorOps) appendFloor(p *appendFloorPlan, dir string, f *os.File, overlap bool) {
	segDir := dir + "/segments"
	for k, seg := range p.sealed {
		if !overlap {
			o.writeSync(f, seg.data)
			o.writeAtomic(segDir, p.idx[k].name, p.idx[k].data)
			next := o.createSegment(segDir, segmentName(int64(k+2)))
			o.writeAtomic(dir, manifestName, p.manifests[k])
			f.Close()
			f = next
			continue
		}
		_, err := f.WriteAt(seg.data, 0)
		o.check(err)
		var wg sync.WaitGroup
		wg.Add(2)
		go func(f *os.File) { defer wg.Done(); o.check(f.Sync()) }(f)
		go func(idx floorFile) { defer wg.Done(); o.writeAtomic(segDir, idx.name, idx.data) }(p.idx[k])
		next := o.createSegment(segDir, segmentName(int64(k+2)))
		temp := o.writeTemp(dir, manifestName, p.manifests[k])
		wg.Wait()
		o.commit(temp, dir, manifestName)
		f.Close()
		f = next
	}
	o.writeSync(f, p.active.data)
	f.Close()
}

// BenchmarkRollFloor/append-*: AppendMany's file operations alone, in a
// collection laid out as Open leaves it (untimed). compact-*: Compact's, on
// a filled collection. The runs they copy are recorded once, up front.
func BenchmarkRollFloor(b *testing.B) {
	plans := map[string]func(o *floorOps, overlap bool) (elapsed, cpu, user time.Duration){}
	ap, cp := recordAppendFloor(b), recordCompactFloor(b)
	plans["append"] = func(o *floorOps, overlap bool) (elapsed, cpu, user time.Duration) {
		dir := benchDir(b) + "/events"
		if err := os.MkdirAll(dir+"/segments", 0o777); err != nil {
			b.Fatal(err)
		}
		o.writeAtomic(dir, manifestName, ap.manifests[0])
		f := o.createSegment(dir+"/segments", firstSegment)
		runtime.GC()
		start, c, u := time.Now(), cpuTime(), userTime()
		o.appendFloor(&ap, dir, f, overlap)
		return time.Since(start), cpuTime() - c, userTime() - u
	}
	plans["compact"] = func(o *floorOps, overlap bool) (elapsed, cpu, user time.Duration) {
		dir := filledLog(b) + "/events"
		runtime.GC()
		start, c, u := time.Now(), cpuTime(), userTime()
		o.compactFloor(&cp, dir, overlap)
		return time.Since(start), cpuTime() - c, userTime() - u
	}
	for _, op := range []string{"append", "compact"} {
		for _, mode := range []string{"seq", "overlap"} {
			b.Run(op+"-"+mode, func(b *testing.B) {
				o := &floorOps{b: b}
				var elapsed, cpu, user time.Duration
				for i := 0; i < b.N; i++ {
					e, c, u := plans[op](o, mode == "overlap")
					elapsed, cpu, user = elapsed+e, cpu+c, user+u
				}
				reportFloor(b, elapsed, cpu, user)
			})
		}
	}
}

func reportFloor(b *testing.B, elapsed, cpu, user time.Duration) {
	b.ReportMetric(float64(elapsed.Nanoseconds())/1000/float64(b.N*benchRecords), "us/record")
	b.ReportMetric(float64(cpu.Nanoseconds())/1000/float64(b.N*benchRecords), "cpu-us/record")
	b.ReportMetric(float64(user.Nanoseconds())/1000/float64(b.N*benchRecords), "user-us/record")
}

// compactFloorPlan is what Compact reads and writes on a filled log.
type compactFloorPlan struct {
	inputs    []string    // sealed segments read (twice: recovery, copy)
	active    string      // the active segment, read by recovery, then rolled
	recovered []byte      // manifest written by recovery
	rolledIdx floorFile   // idx file of the rolled active segment
	rolled    []byte      // manifest written by the roll
	newActive string      // segment created by the roll
	outputs   []floorFile // compaction outputs
	outputIdx []floorFile // their idx files
	swapped   []byte      // the final manifest
}

// recordCompactFloor runs Compact's three steps once on a filled log and
// reads back what each wrote.
func recordCompactFloor(b *testing.B) compactFloorPlan {
	b.Helper()
	dir := filledLog(b) + "/events"
	read := func(name string) []byte {
		data, err := os.ReadFile(dir + "/" + name)
		if err != nil {
			b.Fatal(err)
		}
		return data
	}
	var p compactFloorPlan
	m, err := readManifest(dir)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range m.sealed {
		p.inputs = append(p.inputs, e.file)
	}
	p.active = m.activeFile()
	l := benchOpen(b, dir[:len(dir)-len("/events")])
	defer l.Close()
	if err := l.withLock(l.recoverLocked); err != nil {
		b.Fatal(err)
	}
	p.recovered = read(manifestName)
	if err := l.withLock(l.rollLocked); err != nil {
		b.Fatal(err)
	}
	p.rolled = read(manifestName)
	p.rolledIdx = readFloorFile(b, dir, indexNameFor(p.active))
	p.newActive = l.man.activeFile()
	if err := l.Compact(); err != nil {
		b.Fatal(err)
	}
	p.swapped = read(manifestName)
	m, err = readManifest(dir)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range m.sealed {
		p.outputs = append(p.outputs, readFloorFile(b, dir, e.file))
		p.outputIdx = append(p.outputIdx, readFloorFile(b, dir, indexNameFor(e.file)))
	}
	return p
}

func (o *floorOps) readAll(segDir string, names []string, buf []byte) {
	for _, name := range names {
		f, err := fsutil.OpenFile(segDir+"/"+name, os.O_RDONLY, 0)
		o.check(err)
		for {
			n, err := f.Read(buf)
			if n == 0 || err != nil {
				break
			}
		}
		f.Close()
	}
}

// compactFloor performs p's file operations in dir, a filled collection.
func (o *floorOps) compactFloor(p *compactFloorPlan, dir string, overlap bool) {
	segDir := dir + "/segments"
	buf := make([]byte, scanBufSize)
	// Recovery: the manifest, every segment, the stats rewrite.
	_, err := os.ReadFile(dir + "/" + manifestName)
	o.check(err)
	_, err = os.Stat(segDir + "/" + p.active)
	o.check(err)
	o.readAll(segDir, p.inputs, buf)
	o.readAll(segDir, []string{p.active}, buf)
	o.writeAtomic(dir, manifestName, p.recovered)
	// Roll of the active segment.
	o.writeAtomic(segDir, p.rolledIdx.name, p.rolledIdx.data)
	o.createSegment(segDir, p.newActive).Close()
	o.writeAtomic(dir, manifestName, p.rolled)
	// Copy: read every sealed segment, write and finish the outputs.
	o.readAll(segDir, append(p.inputs, p.active), buf)
	slots := make(chan struct{}, maxFinishing)
	var wg sync.WaitGroup
	for k, out := range p.outputs {
		f := o.createSegment(segDir, out.name)
		_, err := f.Write(out.data)
		o.check(err)
		finish := func(f *os.File, idx floorFile) {
			o.check(f.Sync())
			o.check(f.Close())
			o.writeAtomic(segDir, idx.name, idx.data)
		}
		if !overlap {
			finish(f, p.outputIdx[k])
			continue
		}
		slots <- struct{}{}
		wg.Add(1)
		go func(f *os.File, idx floorFile) {
			defer func() { <-slots; wg.Done() }()
			finish(f, idx)
		}(f, p.outputIdx[k])
	}
	wg.Wait()
	o.writeAtomic(dir, manifestName, p.swapped)
}
