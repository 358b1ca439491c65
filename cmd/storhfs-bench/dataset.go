package main

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/storhfs/storhfs/core/docstore"
	"github.com/storhfs/storhfs/core/phpjson"
	"github.com/storhfs/storhfs/core/seglog"
	"github.com/storhfs/storhfs/core/uuidv7"
	"github.com/storhfs/storhfs/shard"
)

// Layout of one generated data set (kept between runs under --data):
//
//	<data>/p<records>-l<logRecords>/root/pages/      DocStore, <records> records
//	<data>/p<records>-l<logRecords>/root/events/     SegmentedLog, <logRecords> records
//	<data>/p<records>-l<logRecords>/root/create-m<i>/ empty collections the mount creates into
//	<data>/p<records>-l<logRecords>/native/create-n<i>/ the core's Put creates into (not mounted)
//	<data>/p<records>-l<logRecords>/mnt/             mount point
//	<data>/p<records>-l<logRecords>/floor-mnt/       mount point of the FUSE floor (floorfs.go)
//	<data>/p<records>-l<logRecords>/variant-mnt/     mount point of the variant floor (--floor-variant)
//	<data>/p<records>-l<logRecords>/{pages,events}.done  generation finished
const (
	recordsCollection = "pages"
	logCollection     = "events"
	// needle is the grep value: present in records whose number i has i%100 == needleMod.
	needle    = "ultraviolet"
	needleMod = 7
	// nameFragment is what `find -name` looks for (hex, so in ~0.8% of UUID names).
	nameFragment = "abc"
)

type dataset struct {
	dir        string
	records    int
	logRecords int
}

func newDataset(dataDir string, records, logRecords int) dataset {
	return dataset{
		dir:     filepath.Join(dataDir, fmt.Sprintf("p%d-l%d", records, logRecords)),
		records: records, logRecords: logRecords,
	}
}

func (d dataset) root() string               { return filepath.Join(d.dir, "root") }
func (d dataset) nativeRoot() string         { return filepath.Join(d.dir, "native") }
func (d dataset) mountpoint() string         { return filepath.Join(d.dir, "mnt") }
func (d dataset) floorMountpoint() string    { return filepath.Join(d.dir, "floor-mnt") }
func (d dataset) variantMountpoint() string  { return filepath.Join(d.dir, "variant-mnt") }
func (d dataset) pagesDir() string           { return filepath.Join(d.root(), recordsCollection) }
func (d dataset) logDir() string             { return filepath.Join(d.root(), logCollection) }
func (d dataset) doneMarker(w string) string { return filepath.Join(d.dir, w+".done") }

// bucketDirs are the 256 bucket directories of the records collection, the
// `data/*/` a tool lists without the mount.
func (d dataset) bucketDirs() ([]string, error) {
	entries, err := os.ReadDir(shard.DataDir(d.pagesDir()))
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, filepath.Join(shard.DataDir(d.pagesDir()), e.Name())+"/")
		}
	}
	return dirs, nil
}

// ensure generates whatever part of the data set is missing.
func (d dataset) ensure(logf func(string, ...any)) error {
	if err := os.MkdirAll(d.root(), 0o755); err != nil {
		return err
	}
	for _, mnt := range []string{d.mountpoint(), d.floorMountpoint(), d.variantMountpoint()} {
		if err := os.MkdirAll(mnt, 0o755); err != nil {
			return err
		}
	}
	if !exists(d.doneMarker(recordsCollection)) {
		logf("generating %d records in %s", d.records, d.pagesDir())
		if err := os.RemoveAll(d.pagesDir()); err != nil {
			return err
		}
		if err := generateRecords(d.root(), recordsCollection, d.records); err != nil {
			return err
		}
		if err := markDone(d.doneMarker(recordsCollection)); err != nil {
			return err
		}
	}
	if d.logRecords > 0 && !exists(d.doneMarker(logCollection)) {
		logf("generating a %d-record log in %s", d.logRecords, d.logDir())
		if err := os.RemoveAll(d.logDir()); err != nil {
			return err
		}
		if err := generateLog(d.root(), logCollection, d.logRecords); err != nil {
			return err
		}
		if err := markDone(d.doneMarker(logCollection)); err != nil {
			return err
		}
	}
	return nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func markDone(path string) error {
	unix.Sync() // drop_caches must not have to write the data set back
	return os.WriteFile(path, []byte(time.Now().UTC().Format(time.RFC3339)+"\n"), 0o644)
}

// recordData is the data of record number i: small typed fields, a body of
// 20-80 words, and the needle colour in 1% of the records.
func recordData(i int) *phpjson.Array {
	rng := rand.New(rand.NewPCG(uint64(i), 42))
	d := phpjson.NewArray(7)
	d.SetString("title", fmt.Sprintf("Record number %d", i))
	d.SetString("kind", fmt.Sprintf("k%d", i%10))
	d.SetString("tags", phpjson.NewList(fmt.Sprintf("t%d", i%50), fmt.Sprintf("t%d", rng.IntN(50))))
	d.SetString("n", int64(i))
	d.SetString("score", float64(rng.IntN(100000))/100)
	color := colors[rng.IntN(len(colors))]
	if i%100 == needleMod {
		color = needle
	}
	d.SetString("color", color)
	words := make([]string, 20+rng.IntN(61))
	for w := range words {
		words[w] = vocabulary[rng.IntN(len(vocabulary))]
	}
	d.SetString("body", strings.Join(words, " "))
	return d
}

var colors = []string{"red", "green", "blue", "amber", "teal", "violet", "black", "white"}

var vocabulary = strings.Fields(`lorem ipsum dolor sit amet consectetur adipiscing elit sed do
eiusmod tempor incididunt ut labore et dolore magna aliqua enim ad minim veniam quis nostrud
exercitation ullamco laboris nisi aliquip ex ea commodo consequat duis aute irure in
reprehenderit voluptate velit esse cillum fugiat nulla pariatur excepteur sint occaecat
cupidatat non proident sunt culpa qui officia deserunt mollit anim id est laborum`)

// recordBytes is the record file docstore's Put writes for data under id
// (docs/format/docstore.md §2.2): {"id":"<id>","data":<J(data)>}\n.
func recordBytes(id string, data *phpjson.Array) ([]byte, error) {
	buf := append(make([]byte, 0, 512), `{"id":"`...)
	buf = append(buf, id...)
	buf = append(buf, `","data":`...)
	buf, err := phpjson.AppendEncode(buf, data)
	if err != nil {
		return nil, err
	}
	return append(buf, '}', '\n'), nil
}

// generateRecords writes n records into collection under root: the store
// is created by docstore.Open, the record files are written directly (the
// bytes Put would write, without Put's per-record fsync; tested in
// dataset_test.go), and a sample is read back through docstore.Get.
func generateRecords(root, collection string, n int) error {
	s, err := docstore.Open(root, collection, docstore.Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	if err := os.MkdirAll(shard.DataDir(s.Dir()), 0o755); err != nil {
		return err
	}
	gen := uuidv7.NewGenerator(nil, nil)
	base := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	madeBucket := map[string]bool{}
	var sample []string
	for i := range n {
		id, err := gen.NewAt(base + int64(i)*7)
		if err != nil {
			return err
		}
		content, err := recordBytes(id, recordData(i))
		if err != nil {
			return fmt.Errorf("record %d: %w", i, err)
		}
		if b := shard.BucketOf(id); !madeBucket[b] {
			if err := os.MkdirAll(shard.BucketDir(s.Dir(), id), 0o755); err != nil {
				return err
			}
			madeBucket[b] = true
		}
		if err := os.WriteFile(s.RecordPath(id), content, 0o644); err != nil {
			return err
		}
		if i%(n/10+1) == 0 {
			sample = append(sample, id)
		}
	}
	for _, id := range sample {
		if _, err := s.Get(id); err != nil {
			return fmt.Errorf("read back generated record %s: %w", id, err)
		}
	}
	return nil
}

// logData is the data of log record number i.
func logData(i int) *phpjson.Array {
	d := phpjson.NewArray(4)
	d.SetString("type", []string{"view", "click", "signup", "purchase"}[i%4])
	d.SetString("user", fmt.Sprintf("user-%d", i%5000))
	d.SetString("n", int64(i))
	d.SetString("msg", fmt.Sprintf("event %d of the benchmark log", i))
	return d
}

// generateLog appends n records to the log collection with AppendMany, in
// chunks (one lock hold and flush per chunk).
func generateLog(root, collection string, n int) error {
	l, err := seglog.Open(root, collection, seglog.Options{})
	if err != nil {
		return err
	}
	const chunk = 10000
	for start := 0; start < n; start += chunk {
		rows := make([]phpjson.Value, 0, chunk)
		for i := start; i < min(start+chunk, n); i++ {
			rows = append(rows, logData(i))
		}
		if _, err := l.AppendMany(rows); err != nil {
			l.Close()
			return fmt.Errorf("append log records %d..: %w", start, err)
		}
	}
	return l.Close()
}

// segmentFiles are the log's raw segment files, in name order.
func (d dataset) segmentFiles() ([]string, error) {
	files, err := filepath.Glob(filepath.Join(d.logDir(), "segments", "seg-*.ndjson"))
	if err == nil && len(files) == 0 {
		err = fmt.Errorf("no segments in %s: %w", d.logDir(), fs.ErrNotExist)
	}
	return files, err
}

// freshCollections (re)creates empty DocStore collections prefix1..prefixN
// under root and returns their directories.
func freshCollections(root, prefix string, n int) ([]string, error) {
	var dirs []string
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("%s%d", prefix, i)
		if err := os.RemoveAll(filepath.Join(root, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if err := docstore.Create(root, name); err != nil {
			return nil, err
		}
		dirs = append(dirs, name)
	}
	return dirs, nil
}

// removeCollections deletes the collections freshCollections made.
func removeCollections(root string, names []string) error {
	var errs []error
	for _, name := range names {
		errs = append(errs, os.RemoveAll(filepath.Join(root, name)))
	}
	return errors.Join(errs...)
}
