package main

import (
	"bytes"
	"os"
	"path/filepath"

	"github.com/storhfs/storhfs/shard"
)

// Goals of the benchmark issue.
var (
	listingGoal = maxRatio(2)   // listing and stat-ing
	readingGoal = maxRatio(1.5) // reading every record
	createGoal  = minRate(1600) // the PHP library's durable put on this machine
)

// opSet is the data-set operations, named as in the table.
type opSet struct {
	listing []op // listed and stat-ed every record: RSS is read after these
	reading []op
}

// fileLists are NUL-separated lists of the same record files, one per side.
type fileLists struct {
	native, mount, floor, variant string
}

// buildOps describes every tool operation on both sides, and on the FUSE
// floor mounted at floorDir and the variant floor at variantDir unless
// they are "".
func buildOps(d dataset, buckets []string, lists fileLists, floorDir, variantDir string) opSet {
	dataDir := shard.DataDir(d.pagesDir())
	coll := filepath.Join(d.mountpoint(), recordsCollection)
	withDirs := func(argv ...string) []string { return append(argv, buckets...) }
	onFloor := func(s side) side {
		if floorDir == "" {
			return nil
		}
		return s
	}
	onVariant := func(s side) side {
		if variantDir == "" {
			return nil
		}
		return s
	}
	findName := "*" + nameFragment + "*.jsonc"
	return opSet{
		listing: []op{
			{name: "names only (`ls -f`)", goal: listingGoal, dropCaches: true, sameOutput: true,
				native:  tool(withDirs("ls", "-f"), "", countSuffix, ".jsonc"),
				mount:   tool([]string{"ls", "-f", coll}, "", countSuffix, ".jsonc"),
				floor:   onFloor(tool([]string{"ls", "-f", floorDir}, "", countSuffix, ".jsonc")),
				variant: onVariant(tool([]string{"ls", "-f", variantDir}, "", countSuffix, ".jsonc"))},
			{name: "`ls -l` of all", goal: listingGoal, dropCaches: true, sameOutput: true,
				native:  tool(withDirs("ls", "-l"), "", countSuffix, ".jsonc"),
				mount:   tool([]string{"ls", "-l", coll}, "", countSuffix, ".jsonc"),
				floor:   onFloor(tool([]string{"ls", "-l", floorDir}, "", countSuffix, ".jsonc")),
				variant: onVariant(tool([]string{"ls", "-l", variantDir}, "", countSuffix, ".jsonc"))},
			{name: "`find -name '" + findName + "'`", goal: listingGoal, dropCaches: true, sameOutput: true,
				native:  tool([]string{"find", dataDir, "-name", findName}, "", countLines, ""),
				mount:   tool([]string{"find", coll, "-name", findName}, "", countLines, ""),
				floor:   onFloor(tool([]string{"find", floorDir, "-name", findName}, "", countLines, "")),
				variant: onVariant(tool([]string{"find", variantDir, "-name", findName}, "", countLines, ""))},
		},
		reading: []op{
			{name: "`cat` of all records", goal: readingGoal, dropCaches: true, sameOutput: true,
				native:  tool([]string{"xargs", "-0", "cat"}, lists.native, countBytes, ""),
				mount:   tool([]string{"xargs", "-0", "cat"}, lists.mount, countBytes, ""),
				floor:   onFloor(tool([]string{"xargs", "-0", "cat"}, lists.floor, countBytes, "")),
				variant: onVariant(tool([]string{"xargs", "-0", "cat"}, lists.variant, countBytes, ""))},
			{name: "`grep -r " + needle + "` (1%)", goal: readingGoal, dropCaches: true, sameOutput: true,
				native:  tool([]string{"grep", "-r", needle, dataDir}, "", countLines, ""),
				mount:   tool([]string{"grep", "-r", needle, coll}, "", countLines, ""),
				floor:   onFloor(tool([]string{"grep", "-r", needle, floorDir}, "", countLines, "")),
				variant: onVariant(tool([]string{"grep", "-r", needle, variantDir}, "", countLines, ""))},
		},
	}
}

// writeFileLists writes the record files as NUL-separated lists: natively
// bucket by bucket (as `find data/` walks them), through the mount and on
// the floor in id order (as those list them).
func writeFileLists(d dataset, buckets []string) (fileLists, error) {
	var native, mount, floor, variant bytes.Buffer
	for _, b := range buckets {
		entries, err := os.ReadDir(b)
		if err != nil {
			return fileLists{}, err
		}
		for _, e := range entries {
			native.WriteString(filepath.Join(b, e.Name()))
			native.WriteByte(0)
		}
	}
	coll := filepath.Join(d.mountpoint(), recordsCollection)
	err := shard.Walk(d.pagesDir(), "", func(e shard.Entry) error {
		mount.WriteString(filepath.Join(coll, e.ID+".jsonc"))
		mount.WriteByte(0)
		floor.WriteString(filepath.Join(d.floorMountpoint(), e.ID+".jsonc"))
		floor.WriteByte(0)
		variant.WriteString(filepath.Join(d.variantMountpoint(), e.ID+".jsonc"))
		variant.WriteByte(0)
		return nil
	})
	if err != nil {
		return fileLists{}, err
	}
	lists := fileLists{
		native:  filepath.Join(d.dir, "native.list"),
		mount:   filepath.Join(d.dir, "mount.list"),
		floor:   filepath.Join(d.dir, "floor.list"),
		variant: filepath.Join(d.dir, "variant.list"),
	}
	for path, b := range map[string][]byte{lists.native: native.Bytes(), lists.mount: mount.Bytes(), lists.floor: floor.Bytes(), lists.variant: variant.Bytes()} {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return fileLists{}, err
		}
	}
	return lists, nil
}

// createOp creates records natively with the core's Put and through the mount.
func createOp(self string, d dataset, n int) op {
	return op{
		name: "create " + itoa(n) + " records (core Put vs mount)", goal: createGoal,
		rateCount: n, noWarmup: true, sameOutput: true,
		native: nativeCreate(d.nativeRoot(), n),
		mount:  mountCreate(self, d.mountpoint(), d.root(), n),
	}
}

// logOp reads a log: the raw segment files natively, records.ndjson
// through the mount. The outputs differ (guards, record envelope).
func logOp(d dataset, segments []string) op {
	return op{
		name: "log: `cat` " + itoa(d.logRecords) + " records (segments vs records.ndjson)",
		goal: readingGoal, dropCaches: true,
		native: tool(append([]string{"cat"}, segments...), "", countBytes, ""),
		mount:  tool([]string{"cat", filepath.Join(d.mountpoint(), logCollection, "records.ndjson")}, "", countBytes, ""),
	}
}
