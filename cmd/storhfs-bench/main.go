// Command storhfs-bench measures a storhfs mount against reading the same
// files directly from the sharded data directory, side by side in one run,
// and prints a Markdown table of median times and ratios (docs/bench.md).
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/storhfs/storhfs/internal/fuseuring"
)

type config struct {
	records    int
	create     int
	logRecords int
	runs       int
	dataDir    string
	bin        string
	keep       bool
	dropCaches bool
	floor      bool
	floorOpts  floorOptions
	// variantMode: a second floor with this mode, measured side by side
	// with the first ("" for none).
	variantMode floorMode
	readOnly    bool // mount with --read-only (no creates then)
	noOpen      bool // mount with --no-open
	ioUring     bool // mount (and serve the floor) over io_uring
	scale       bool // only the scale rows (scale.go)
	views       bool // measure the hidden views (views.go)
	onlyViews   bool // measure only those
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == createChildArg {
		if err := runCreateChild(os.Args[2:], os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "storhfs-bench:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == floorServeArg {
		if err := runFloorServer(os.Args[2:], os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "storhfs-bench:", err)
			os.Exit(1)
		}
		return
	}
	var cfg config
	flag.IntVar(&cfg.records, "records", 100000, "records in the generated collection")
	flag.IntVar(&cfg.create, "create", 10000, "records created per run (0 skips)")
	flag.IntVar(&cfg.logRecords, "log-records", 500000, "records in the generated log (0 skips)")
	flag.IntVar(&cfg.runs, "runs", 3, "runs per measurement (median reported)")
	flag.StringVar(&cfg.dataDir, "data", "", "where generated data is kept and reused (default: a temp dir, removed unless --keep)")
	flag.StringVar(&cfg.bin, "bin", "bin/storhfs", "the storhfs binary")
	flag.BoolVar(&cfg.keep, "keep", false, "keep the temp data dir for the next run")
	flag.BoolVar(&cfg.dropCaches, "drop-caches", true, "drop the page cache before each run of read operations (root); false: warm caches")
	flag.BoolVar(&cfg.floor, "floor", true, "also measure the listing and reading rows on a minimal in-memory FUSE file system (the FUSE floor)")
	flag.DurationVar(&cfg.floorOpts.timeout, "floor-timeout", storhfsFloor.timeout, "the floor's entry, attribute and negative cache timeout (variant; storhfs uses 1s)")
	floorMode := flag.String("floor-mode", "", fmt.Sprintf("how the floor answers OPEN and FLUSH, one of %v (docs/bench.md); default: as the mount (open; no-open-flush with --no-open; no-open with --read-only)", floorModes))
	noOpen := flag.Bool("floor-no-open", false, "same as --floor-mode=no-open")
	variantMode := flag.String("floor-variant", "", "also measure a second floor with this --floor-mode, as its own column")
	flag.BoolVar(&cfg.readOnly, "read-only", false, "mount with storhfs mount --read-only (requires --create 0)")
	flag.BoolVar(&cfg.noOpen, "no-open", false, "mount with storhfs mount --no-open (its floor: --floor-mode no-open-flush)")
	flag.BoolVar(&cfg.ioUring, "io-uring", false, "mount with storhfs mount --io-uring, and serve the floor over io_uring too (root; turns the fuse module's enable_uring on for the run)")
	flag.BoolVar(&cfg.scale, "scale", false, "measure only mount readiness and memory after listing everything (scale.go)")
	flag.BoolVar(&cfg.views, "views", true, "measure .all.ndjson and the index folders (views.go)")
	flag.BoolVar(&cfg.onlyViews, "only-views", false, "measure only .all.ndjson and the index folders")
	flag.Parse()
	err := parseFloorModes(&cfg, *floorMode, *noOpen, *variantMode)
	if err == nil {
		err = run(cfg)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "storhfs-bench:", err)
		os.Exit(1)
	}
}

// mountFlags are the storhfs mount flags of the run.
func (cfg config) mountFlags() []string {
	var flags []string
	if cfg.readOnly {
		flags = append(flags, "--read-only")
	}
	if cfg.noOpen {
		flags = append(flags, "--no-open")
	}
	if cfg.ioUring {
		flags = append(flags, "--io-uring")
	}
	return flags
}

// parseFloorModes sets the floor's mode and the variant's from the flags.
// Unless given, the floor's mode is the mount's: the floor of a mount
// without OPEN is a floor without OPEN.
func parseFloorModes(cfg *config, mode string, noOpen bool, variant string) error {
	var err error
	switch {
	case noOpen:
		mode = string(floorNoOpen)
	case mode != "": // --floor-mode as given
	case cfg.readOnly:
		mode = string(floorNoOpen)
	case cfg.noOpen:
		mode = string(floorNoOpenFlush)
	default:
		mode = string(floorOpen)
	}
	if cfg.floorOpts.mode, err = parseFloorMode(mode); err != nil {
		return fmt.Errorf("--floor-mode: %w", err)
	}
	if variant != "" {
		if cfg.variantMode, err = parseFloorMode(variant); err != nil {
			return fmt.Errorf("--floor-variant: %w", err)
		}
	}
	return nil
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
}

func itoa(n int) string { return strconv.Itoa(n) }

func run(cfg config) (err error) {
	if cfg.records < 1 || cfg.runs < 1 || cfg.create < 0 || cfg.logRecords < 0 || cfg.floorOpts.timeout <= 0 {
		return fmt.Errorf("--records and --runs must be at least 1, --create and --log-records not negative, --floor-timeout positive")
	}
	if cfg.readOnly && cfg.create > 0 {
		return fmt.Errorf("--read-only mounts cannot create records: pass --create 0")
	}
	if cfg.ioUring {
		restore, err := fuseuring.TurnOn()
		if err != nil {
			return err
		}
		defer restore()
		cfg.floorOpts.ioUring = true
	}
	bin, err := filepath.Abs(cfg.bin)
	if err != nil {
		return err
	}
	if _, err := os.Stat(bin); err != nil {
		return fmt.Errorf("storhfs binary: %w (build it: go build -o %s ./cmd/storhfs)", err, cfg.bin)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	dataDir := cfg.dataDir
	if dataDir == "" {
		if dataDir, err = os.MkdirTemp("", "storhfs-bench-"); err != nil {
			return err
		}
		if cfg.keep {
			logf("data kept in %s (pass --data %s to reuse it)", dataDir, dataDir)
		} else {
			defer os.RemoveAll(dataDir)
		}
	}
	if dataDir, err = filepath.Abs(dataDir); err != nil {
		return err
	}
	d := newDataset(dataDir, cfg.records, cfg.logRecords)
	if err := d.ensure(logf); err != nil {
		return fmt.Errorf("generate: %w", err)
	}
	if cfg.scale {
		return runScale(bin, d, cfg.runs)
	}
	for _, mnt := range []string{d.mountpoint(), d.floorMountpoint(), d.variantMountpoint()} {
		if isMounted(mnt) {
			logf("%s is still mounted from an earlier run: unmounting", mnt)
			_ = runQuiet("umount", "-l", mnt)
		}
	}
	buckets, err := d.bucketDirs()
	if err != nil {
		return err
	}
	lists, err := writeFileLists(d, buckets)
	if err != nil {
		return err
	}
	creates := 0
	if cfg.create > 0 {
		creates = cfg.runs
	}
	mountColls, err := freshCollections(d.root(), "create-m", creates)
	if err != nil {
		return err
	}
	defer func() { _ = removeCollections(d.root(), mountColls) }()
	nativeColls, err := freshCollections(d.nativeRoot(), "create-n", creates)
	if err != nil {
		return err
	}
	defer func() { _ = removeCollections(d.nativeRoot(), nativeColls) }()

	var live, floor, variant liveMount
	defer live.stop()
	defer floor.stop()
	defer variant.stop()
	stopOnSignal(&live, &floor, &variant)
	if err := live.start(func() (*mountProc, error) { return startMount(bin, d.root(), d.mountpoint(), cfg.mountFlags()) }); err != nil {
		return err
	}
	floorDir := ""
	if cfg.floor {
		logf("loading %s into the FUSE floor at %s", d.pagesDir(), d.floorMountpoint())
		if err := floor.start(func() (*mountProc, error) { return startFloor(self, d.pagesDir(), d.floorMountpoint(), cfg.floorOpts) }); err != nil {
			return err
		}
		floorDir = d.floorMountpoint()
	}
	variantDir := ""
	variantOpts := floorOptions{timeout: cfg.floorOpts.timeout, mode: cfg.variantMode, ioUring: cfg.floorOpts.ioUring}
	if cfg.floor && cfg.variantMode != "" {
		logf("loading %s into the variant floor (%s) at %s", d.pagesDir(), cfg.variantMode, d.variantMountpoint())
		if err := variant.start(func() (*mountProc, error) {
			return startFloor(self, d.pagesDir(), d.variantMountpoint(), variantOpts)
		}); err != nil {
			return err
		}
		variantDir = d.variantMountpoint()
	}
	r := &runner{runs: cfg.runs, dropCaches: cfg.dropCaches, warm: !cfg.dropCaches, logf: logf}
	if cfg.onlyViews {
		fmt.Printf("storhfs bench, %s: %d records, views only, median of %d runs, %d CPUs, %s, load %s\n\n",
			time.Now().UTC().Format("2006-01-02 15:04 MST"), cfg.records, cfg.runs, runtime.NumCPU(), kernelRelease(), loadAverage())
		return benchViews(r, &live, bin, d, cfg.mountFlags())
	}
	ops := buildOps(d, buckets, lists, floorDir, variantDir)
	var rows []row
	for _, o := range ops.listing {
		rw, err := r.measure(o)
		if err != nil {
			return err
		}
		rows = append(rows, rw)
	}
	rssListing, err := live.peakRSS()
	if err != nil {
		return err
	}
	for _, o := range ops.reading {
		rw, err := r.measure(o)
		if err != nil {
			return err
		}
		rows = append(rows, rw)
	}
	floor.stop()
	variant.stop()
	if cfg.create > 0 {
		rw, err := r.measure(createOp(self, d, cfg.create))
		if err != nil {
			return err
		}
		rows = append(rows, rw)
	}
	rssEnd, err := live.peakRSS()
	if err != nil {
		return err
	}
	live.stop()

	caches := "cold caches (dropped before every run)"
	if !cfg.dropCaches {
		caches = "warm caches (one untimed run first)"
	}
	sides := "native and mount"
	if cfg.floor {
		sides = "native, mount and FUSE floor (listing and reading rows)"
		if cfg.variantMode != "" {
			sides = "native, mount, FUSE floor and variant floor (listing and reading rows)"
		}
	}
	mode := "read-write mount"
	if cfg.readOnly {
		mode = "read-only mount"
	}
	if cfg.noOpen {
		mode += " without OPEN (--no-open)"
	}
	if cfg.ioUring {
		mode += " and floor over io_uring"
	}
	fmt.Printf("storhfs bench, %s: %d records, %s, median of %d runs alternating %s, %s, %d CPUs, %s, load %s\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), cfg.records, mode, cfg.runs, sides, caches, runtime.NumCPU(), kernelRelease(), loadAverage())
	writeTable(os.Stdout, rows)
	if cfg.floor {
		fmt.Println()
		options := "with the mount's options"
		if v := cfg.floorOpts.String(); v != "" {
			options = "VARIANT: the mount's options except " + v
		}
		fmt.Printf("floor: a minimal go-fuse file system serving the same names and bytes from memory, %s (docs/bench.md).\n", options)
		if variantDir != "" {
			fmt.Printf("variant: a second floor, the mount's options except %s.\n", variantOpts)
		}
	}
	fmt.Println()
	fmt.Println(rssLine("after listing and stat-ing every record", rssListing, rssLimit))
	fmt.Println()
	fmt.Println(rssLine("at the end (also after cat, grep, creates)", rssEnd, 0))
	if cfg.logRecords > 0 {
		fmt.Println()
		if err := benchLog(r, &live, bin, d, cfg.mountFlags()); err != nil {
			return err
		}
	}
	if cfg.views {
		fmt.Println()
		return benchViews(r, &live, bin, d, cfg.mountFlags())
	}
	return nil
}

// benchLog reads the log natively and through a fresh mount (so its peak
// RSS is the log's alone), or says it is not shown yet.
func benchLog(r *runner, live *liveMount, bin string, d dataset, mountFlags []string) error {
	segments, err := d.segmentFiles()
	if err != nil {
		return err
	}
	if err := live.start(func() (*mountProc, error) { return startMount(bin, d.root(), d.mountpoint(), mountFlags) }); err != nil {
		return err
	}
	defer live.stop()
	if _, err := os.Stat(filepath.Join(d.mountpoint(), logCollection, "records.ndjson")); err != nil {
		fmt.Println("log: not mounted yet")
		logf("log: %v", err)
		return nil
	}
	rw, err := r.measure(logOp(d, segments))
	if err != nil {
		return err
	}
	rss, err := live.peakRSS()
	if err != nil {
		return err
	}
	writeTable(os.Stdout, []row{rw})
	fmt.Println()
	fmt.Println(rssLine("after reading the log", rss, rssLimit))
	return nil
}

// liveMount holds the current mount (storhfs or the floor) so that a
// signal can stop it.
type liveMount struct {
	mu sync.Mutex
	m  *mountProc
}

// start runs a mount with startProc and holds it.
func (l *liveMount) start(startProc func() (*mountProc, error)) error {
	m, err := startProc()
	if err != nil {
		return err
	}
	l.mu.Lock()
	l.m = m
	l.mu.Unlock()
	return nil
}

func (l *liveMount) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m != nil {
		if err := l.m.stop(); err != nil {
			logf("%v", err)
		}
		l.m = nil
	}
}

// rss is the current mount's VmRSS.
func (l *liveMount) rss() (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		return 0, fmt.Errorf("no mount running")
	}
	return procStatusBytes(l.m.cmd.Process.Pid, "VmRSS")
}

func (l *liveMount) peakRSS() (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		return 0, fmt.Errorf("no mount running")
	}
	return l.m.peakRSS()
}

// stopOnSignal unmounts and exits on SIGINT/SIGTERM.
func stopOnSignal(lives ...*liveMount) {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		s := <-sig
		logf("%v: unmounting", s)
		for _, l := range lives {
			l.stop()
		}
		os.Exit(130)
	}()
}

func kernelRelease() string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return "kernel ?"
	}
	return "Linux " + string(trimNL(b))
}

// loadAverage is the 1, 5 and 15 minute load averages: the machine is
// shared, and the load says how far to trust the figures.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func trimNL(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

func runQuiet(name string, args ...string) error {
	return exec.Command(name, args...).Run()
}
