package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/storhfs/storhfs/core/fsutil"
	"github.com/storhfs/storhfs/fusefs"
	"github.com/storhfs/storhfs/internal/engines"
)

func mountCommand() *cli.Command {
	return &cli.Command{
		Name:      "mount",
		Usage:     "show every collection under ROOT at MOUNTPOINT (foreground; Ctrl-C, SIGTERM or SIGHUP unmounts)",
		ArgsUsage: "ROOT MOUNTPOINT",
		Description: `Flags may come before or after ROOT and MOUNTPOINT, and -o takes the
options of an /etc/fstab line: ro, rw, nonempty, log=FILE, and every flag
with "_" for "-" (allow_other, allow_root, default_permissions, uid=1000,
gid=1000, umask=027, no_watch, max_buffer_mb=256, ...).

Example:
   $ storhfs mount /var/storh/app /mnt/storh
   $ storhfs mount /var/storh/app /mnt/storh -o ro,allow_other
   $ storhfs mount /var/storh/app /mnt/storh -o uid=1000,gid=1000,umask=027,allow_other
   $ storhfs mount --read-only /var/storh/app /mnt/storh --log-file /var/log/storhfs.log`,
		OnUsageError: onUsageError,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "read-only", Usage: "refuse every change with EROFS"},
			&cli.BoolFlag{Name: "allow-other", Usage: "let other users access the mount (turns on --default-permissions)"},
			&cli.BoolFlag{Name: allowRootFlag, Usage: "let root access the mount besides the user running storhfs (not with --allow-other; a non-root user needs user_allow_other in /etc/fuse.conf)"},
			&cli.BoolFlag{Name: defaultPermissionsFlag, Usage: "have the kernel check the owner and permission bits shown before every access"},
			&cli.StringFlag{Name: uidFlag, Usage: "show every file and folder as owned by user `ID` (a number; default: the owner of each stored file)", Action: checkOwnershipValue(uidFlag)},
			&cli.StringFlag{Name: gidFlag, Usage: "show every file and folder as owned by group `ID` (a number)", Action: checkOwnershipValue(gidFlag)},
			&cli.StringFlag{Name: umaskFlag, Usage: "show permission bits 0666 (files) and 0777 (folders) less the octal `MASK`; read-only files stay read-only (default: 0644 and 0755)", Action: checkOwnershipValue(umaskFlag)},
			&cli.BoolFlag{Name: "debug", Usage: "log every FUSE request (same as --log-level debug)"},
			// Set by the mount(8) helper (fstab.go) for its detached child.
			&cli.StringFlag{Name: detachedLogFlag, Hidden: true},
			&cli.BoolFlag{Name: daemonFlag, Usage: "mount in the background: return once the mount serves (exit 0), or with its error; logs go to --log-file, else to syslog"},
			&cli.BoolFlag{Name: "no-watch", Usage: "do not watch ROOT for changes made by other processes (they then show up within the 1 s kernel cache timeout)"},
			&cli.DurationFlag{Name: "cache-timeout", Value: fusefs.DefaultCacheTimeout, Usage: "how long the kernel may cache records whose every change the watcher sees (a local ROOT); it drops them when they change. 1s or less: always 1 s"},
			&cli.BoolFlag{Name: allowNonEmptyFlag, Usage: "mount over a MOUNTPOINT that holds files (they are hidden until unmounted)"},
			&cli.BoolFlag{Name: allowForeignRootFlag, Usage: "mount a ROOT that holds files but no storh collection (it shows as an empty folder)"},
			&cli.StringFlag{Name: logFileFlag, Usage: "append the mount's messages (refused writes, errors) to `FILE` instead of standard error (or syslog with --daemon)"},
			&cli.StringFlag{Name: logLevelFlag, Value: defaultLogLevel, Usage: "log `LEVEL`: error, warn (refused writes), info (also mounts, unmounts and each commit), debug (also FUSE traffic)", Action: checkLogLevel},
			&cli.StringFlag{Name: syslogSocketFlag, Hidden: true},
			&cli.Int64Flag{Name: "max-buffer-mb", Value: fusefs.DefaultMaxBufferBytes >> 20, Usage: "memory (MiB) for uncommitted writes, editor temp files and commits together (larger files wait on ROOT's disk); beyond it writes fail with ENOSPC"},
			&cli.BoolFlag{Name: "no-repair", Usage: "after a writer died, log index drift but do not rebuild the drifted indexes"},
			&cli.BoolFlag{Name: sharedStorageFlag, Usage: "ROOT is shared with other hosts (detected on network, cluster and FUSE file systems): poll for their changes, which inotify does not see, and judge no writer dead by its pid"},
			&cli.IntFlag{Name: "max-record-nodes", Value: fusefs.DefaultMaxRecordNodes, Usage: "how many records the kernel may keep looked up at once; past it the oldest are forgotten (a later use looks them up again). 0: no limit"},
			&cli.BoolFlag{Name: "io-uring", Usage: "take the kernel's requests over io_uring instead of /dev/fuse: about half the cost per request, which warm reads of many small records feel (Linux 6.14+ with the fuse module's enable_uring on; the mount fails otherwise)"},
			&cli.BoolFlag{Name: "no-open", Usage: "have the kernel send no OPEN: a warm read of a record costs one request (the FLUSH of its close) instead of OPEN and RELEASE; writes are buffered per file and committed when the writing process closes it, readers may see a write not yet committed, and a shared writable mmap is committed as the kernel writes it back (implied by --read-only)"},
			&cli.DurationFlag{Name: "poll-interval", Value: fusefs.DefaultPollInterval, Usage: "on shared storage, how often to look for other hosts' changes"},
		},
		Action: runMount,
	}
}

func runMount(c *cli.Context) error {
	if c.NArg() != 2 {
		return usageError(c, "need ROOT and MOUNTPOINT")
	}
	owners, err := mountOwnership(c)
	if err != nil {
		return err
	}
	if c.Bool(daemonFlag) && c.String(detachedLogFlag) == "" {
		return runDaemon(c)
	}
	root, err := filepath.Abs(c.Args().Get(0))
	if err != nil {
		return err
	}
	mountpoint, err := filepath.Abs(c.Args().Get(1))
	if err != nil {
		return err
	}
	catalog, err := checkMountRequest(c, root, mountpoint)
	if err != nil {
		return err
	}
	mode := "read-write"
	if c.Bool("read-only") {
		mode = "read-only"
	}
	// This process serves one mount: its garbage must not outgrow the
	// budget (unless the operator set the Go runtime's limit).
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(fusefs.SoftMemoryLimit(c.Int64("max-buffer-mb") << 20))
	}
	logger, closeLog, err := mountLog(c)
	if err != nil {
		return err
	}
	defer closeLog()
	mounted, err := fusefs.Mount(mountpoint, fusefs.Config{
		Log:        logger,
		Catalog:    catalog,
		FsName:     root,
		ReadOnly:   c.Bool("read-only"),
		AllowOther: c.Bool("allow-other"),
		AllowRoot:  c.Bool(allowRootFlag),
		Ownership:  owners,
		Debug:      c.Bool("debug"),
		NoWatch:    c.Bool("no-watch"),

		DefaultPermissions: c.Bool(defaultPermissionsFlag),

		MaxBufferBytes: c.Int64("max-buffer-mb") << 20,
		CacheTimeout:   c.Duration("cache-timeout"),
		SharedStorage:  c.Bool(sharedStorageFlag),
		PollInterval:   c.Duration("poll-interval"),
		MaxRecordNodes: c.Int("max-record-nodes"),
		IOUring:        c.Bool("io-uring"),
		NoOpen:         c.Bool("no-open"),
	})
	if err != nil {
		return coded(exitMountFailed, mountError(mountpoint, err))
	}
	ready := fmt.Sprintf("%s%s at %s (%s; %s); Ctrl-C unmounts\n", readyLinePrefix, root, mountpoint, mode, mounted.Mode())
	return serveMount(mounted, c.String(detachedLogFlag), ready)
}

// logFileFlag names the file the mount's messages go to (-o log=FILE).
const logFileFlag = "log-file"

// sharedStorageFlag forces the shared-storage mode (-o shared_storage).
const sharedStorageFlag = "shared-storage"

// checkMountRequest refuses every mistake it can see before mounting and
// returns the catalog of the storage root, symlinks resolved.
//
// Invariant: ROOT and MOUNTPOINT do not overlap once resolved (neither is
// the other nor inside it), so the catalog and the watcher, which only
// look below the resolved ROOT, never stat or read the mountpoint: a
// mount that serves its own requests hangs for good. (A symlink under
// ROOT that leads to the mountpoint is the other way there; nothing under
// ROOT is reached through a symlink.)
func checkMountRequest(c *cli.Context, root, mountpoint string) (*fusefs.DirCatalog, error) {
	if err := checkRoot(root); err != nil {
		return nil, coded(exitMountRoot, err)
	}
	if err := checkMountpoint(mountpoint); err != nil {
		return nil, coded(exitMountpoint, err)
	}
	realRoot, realMountpoint, err := resolvePaths(root, mountpoint)
	if err != nil {
		return nil, coded(exitMountpoint, err)
	}
	if err := checkOverlap(root, realRoot, mountpoint, realMountpoint); err != nil {
		return nil, coded(exitMountpoint, err)
	}
	if err := checkMountpointEmpty(mountpoint, c.Bool(allowNonEmptyFlag)); err != nil {
		return nil, coded(exitMountpoint, err)
	}
	hosts := fsutil.DetectHosts
	if c.Bool(sharedStorageFlag) {
		hosts = fsutil.ManyHosts
	}
	catalog := &fusefs.DirCatalog{Root: realRoot, Docs: docStores{noRepair: c.Bool("no-repair"), hosts: hosts}, Logs: engines.Logs{}, Queues: engines.Queues{}}
	if err := checkForeignRoot(root, catalog, c.Bool(allowForeignRootFlag)); err != nil {
		return nil, coded(exitMountRoot, err)
	}
	if err := checkDevFuse(); err != nil {
		return nil, coded(exitNoFuse, err)
	}
	return catalog, nil
}

// serveMount announces the mount and serves it until it is unmounted:
// by SIGINT, SIGTERM or SIGHUP (a closed terminal, a dropped ssh session),
// each a clean unmount that answers every writer first (a second signal
// cuts the wait for open files short), or from outside (umount,
// fusermount3 -u). Either way every store is closed before it returns.
func serveMount(mounted *fusefs.Mounted, detachedLog, ready string) error {
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(signals)
	unmounted := make(chan struct{})
	go func() { mounted.Wait(); close(unmounted) }()
	if err := announceMounted(detachedLog, ready); err != nil {
		mounted.Unmount()
		return err
	}
	// After the announcement: the watchdog inherits stderr, which is then
	// the mount's log, not the mount(8) helper's pipe.
	startMountWatchdog(mounted.Mountpoint)
	if err := sdNotify(notifyReady); err != nil {
		fmt.Fprintln(os.Stderr, "storhfs:", err)
	}

	select {
	case sig := <-signals:
		notifyStoppingOrWarn()
		hurry, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			select {
			case <-signals:
				cancel()
			case <-hurry.Done():
			}
		}()
		if err := mounted.Shutdown(hurry, fusefs.DefaultUnmountGrace); err != nil {
			return err
		}
		fmt.Printf("storhfs: unmounted %s (%v)\n", mounted.Mountpoint, sig)
	case <-unmounted:
		notifyStoppingOrWarn()
		// Unmounted from outside (umount, fusermount3 -u); stores closed.
		fmt.Printf("storhfs: %s was unmounted\n", mounted.Mountpoint)
	}
	return nil
}

func checkRoot(root string) error {
	fi, err := os.Stat(root)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("storage root %s does not exist", root)
	case err != nil:
		return fmt.Errorf("storage root %s: %w", root, err)
	case !fi.IsDir():
		return fmt.Errorf("storage root %s is not a directory", root)
	}
	return nil
}

func checkMountpoint(mountpoint string) error {
	fi, err := os.Stat(mountpoint)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("mountpoint %s does not exist", mountpoint)
	case errors.Is(err, syscall.ENOTCONN), errors.Is(err, syscall.ECONNABORTED): // ECONNABORTED: a dead server that served over io_uring
		return coded(exitAlreadyMounted, fmt.Errorf("mountpoint %s is a dead FUSE mount (%v); run: storhfs unmount --force %s", mountpoint, errors.Unwrap(err), mountpoint))
	case err != nil:
		return fmt.Errorf("mountpoint %s: %w", mountpoint, err)
	case !fi.IsDir():
		return fmt.Errorf("mountpoint %s is not a directory", mountpoint)
	}
	if isMountpoint(mountpoint) {
		return coded(exitAlreadyMounted, fmt.Errorf("mountpoint %s is already mounted", mountpoint))
	}
	return nil
}

// isMountpoint reports whether path is listed in /proc/self/mountinfo.
func isMountpoint(path string) bool {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > 4 && unescapeMountinfo(fields[4]) == path {
			return true
		}
	}
	return false
}

// unescapeMountinfo decodes the octal escapes (\040 for space) of mountinfo.
func unescapeMountinfo(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var v byte
			ok := true
			for _, d := range s[i+1 : i+4] {
				if d < '0' || d > '7' {
					ok = false
					break
				}
				v = v*8 + byte(d-'0')
			}
			if ok {
				b.WriteByte(v)
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func checkDevFuse() error {
	f, err := os.OpenFile("/dev/fuse", os.O_RDWR, 0)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("no /dev/fuse: FUSE is not available here (load the fuse module, or give the container --device /dev/fuse)")
		}
		return fmt.Errorf("cannot open /dev/fuse: %w", err)
	}
	f.Close()
	return nil
}

func mountError(mountpoint string, err error) error {
	if errors.Is(err, syscall.EBUSY) || strings.Contains(err.Error(), "busy") {
		return fmt.Errorf("mountpoint %s is busy: %v", mountpoint, err)
	}
	return fmt.Errorf("mount %s: %v", mountpoint, strings.TrimSpace(err.Error()))
}
