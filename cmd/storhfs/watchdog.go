package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/sys/unix"

	"github.com/storhfs/storhfs/internal/fusectl"
)

// The mount watchdog makes recovery from a killed mount certain.
//
// When the mount process dies (SIGKILL, a crash) while one of its threads
// sits uninterruptibly in the kernel (a cache notification waiting for a
// directory lock that a request to this same, now dying, process holds),
// that thread never returns: the process never finishes exiting, its
// /dev/fuse descriptor is never closed, the connection is never aborted,
// and every process touching the mount hangs in D state. Only an abort
// through fusectl wakes them.
//
// So `storhfs mount` starts `storhfs mount-watchdog`, a small separate
// process (it must outlive the mount process), once the mount is ready.
// It learns that the mount process is dying from the thread-group leader:
//   - init below locks the main goroutine to the main thread, so the
//     leader runs nothing but main (which never sends a notification): it
//     cannot be the stuck thread, and it exits first when the process dies;
//   - the watchdog is forked from that thread with PR_SET_PDEATHSIG, so the
//     leader's exit wakes it at once (no polling; a 5 s recheck is a spare);
//   - the leader being a zombie (or the process gone) means the process is
//     exiting: it will never answer a request again.
//
// Then it gives the process exitGrace to finish exiting by itself (the
// kernel aborts the connection when /dev/fuse closes). If it has not, and
// the connection still exists and still belongs to this mount, it writes
// fusectl's abort: every pending request fails, the stuck thread wakes, the
// process exits. It never touches the mount point or a live process's
// mount, and leaves the dead mount in place (ENOTCONN, as after any crash)
// rather than detaching it, so that writers fail instead of writing into the
// directory underneath; `storhfs unmount --force` detaches it.
//
// Without root it can abort only if fusectl is already mounted (the
// connection's abort file belongs to the mounting user); otherwise it logs
// what to run.

const watchdogCommandName = "mount-watchdog"

// deathSignal wakes the watchdog when the mount's leader thread exits. Its
// default action is to be ignored, so one that arrives before the
// watchdog's handler exists cannot kill it (the startup check sees that
// case); a stray one only causes a recheck.
const deathSignal = syscall.SIGWINCH

const (
	exitGrace   = time.Second     // for a dying process to finish exiting by itself
	recheckIdle = 5 * time.Second // spare recheck, should a wake-up be lost
	abortedExit = 10 * time.Second
)

func init() {
	// The leader thread runs only the main goroutine (see above). Commands
	// other than mount do not care.
	runtime.LockOSThread()
}

// startMountWatchdog starts the watchdog of the mount at mountpoint, served
// by this process, or says on stderr why it could not. It must run on the
// main goroutine (the leader thread: the parent-death signal follows the
// thread that forks).
func startMountWatchdog(mountpoint string) {
	if err := startWatchdog(mountpoint); err != nil {
		fmt.Fprintf(os.Stderr, "storhfs: %v (if this process is killed, the mount may hang: storhfs unmount --force %s recovers it)\n", err, mountpoint)
	}
}

func startWatchdog(mountpoint string) error {
	minor, err := fusectl.MinorOf(mountpoint)
	if err != nil {
		return fmt.Errorf("watchdog of %s: %w", mountpoint, err)
	}
	cmd := exec.Command("/proc/self/exe", watchdogCommandName,
		"--pid", strconv.Itoa(os.Getpid()), "--minor", strconv.FormatUint(uint64(minor), 10), mountpoint)
	cmd.Args[0] = os.Args[0] // what ps shows
	cmd.Dir = "/"
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: deathSignal}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("watchdog of %s: %w", mountpoint, err)
	}
	go cmd.Wait() // reaped should it end first
	return nil
}

func watchdogCommand() *cli.Command {
	return &cli.Command{
		Name:      watchdogCommandName,
		Hidden:    true,
		Usage:     "started by mount: aborts the mount's FUSE connection if the mount process dies stuck",
		ArgsUsage: "MOUNTPOINT",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "pid", Required: true},
			&cli.UintFlag{Name: "minor", Required: true},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError(c, "need MOUNTPOINT")
			}
			return runWatchdog(c.Int("pid"), uint32(c.Uint("minor")), c.Args().First())
		},
	}
}

func runWatchdog(pid int, minor uint32, mountpoint string) error {
	// Signals meant for the mount (Ctrl-C, systemd's stop) must not end the
	// watchdog before the mount process is gone.
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGTTOU)
	wake := make(chan os.Signal, 1)
	signal.Notify(wake, deathSignal)

	d, err := watchParent(pid)
	if err != nil {
		return fmt.Errorf("watchdog of %s: %w", mountpoint, err)
	}
	defer d.close()
	for !d.dying() {
		select {
		case <-wake:
		case <-d.exited:
		case <-time.After(recheckIdle):
		}
	}
	if d.exitedWithin(exitGrace) {
		return nil // /dev/fuse closed: the kernel aborted the connection itself
	}
	if !connectionOf(minor, mountpoint) {
		return nil
	}
	if err := fusectl.Abort(minor); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil // the connection is gone already
		}
		return fmt.Errorf("watchdog: mount process %d of %s is dying with a thread stuck in the kernel, and aborting its FUSE connection failed: %w (as root: storhfs unmount --force %s)", pid, mountpoint, err, mountpoint)
	}
	exited := d.exitedWithin(abortedExit)
	fmt.Fprintf(os.Stderr, "storhfs watchdog: mount process %d of %s died with a thread stuck in the kernel; aborted FUSE connection %d (process exited: %v, connection left: %v); detach with: storhfs unmount --force %s\n",
		pid, mountpoint, minor, exited, fusectl.Conn(minor).Exists(), mountpoint)
	return nil
}

// connectionOf reports whether FUSE connection minor, if it still exists,
// belongs to the mount at mountpoint: mountinfo shows it there, or (lazily
// detached) shows no mount with that device at all, so it cannot be
// another mount's.
func connectionOf(minor uint32, mountpoint string) bool {
	entries, err := fusectl.Mounts()
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.Major == 0 && e.Minor == minor && (e.Mountpoint != mountpoint || e.FsType != fusectl.FsType) {
			return false
		}
	}
	return true
}

// parent is the mount process as the watchdog sees it: a pidfd (so a
// reused pid is never mistaken for it) and /proc for its leader's state.
type parent struct {
	pid    int
	pidfd  int // -1: the process was already gone
	exited chan struct{}
}

// watchParent opens the mount process, which must be this process's parent.
func watchParent(pid int) (*parent, error) {
	p := &parent{pid: pid, pidfd: -1, exited: make(chan struct{})}
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil && !errors.Is(err, unix.ESRCH) {
		return nil, fmt.Errorf("pidfd_open %d: %w", pid, err)
	}
	// Still our parent after the open: the pidfd is the mount process.
	if err != nil || os.Getppid() != pid {
		if err == nil {
			unix.Close(fd)
		}
		close(p.exited)
		return p, nil
	}
	p.pidfd = fd
	go func() {
		defer close(p.exited)
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			// Readable once every thread of the process has exited.
			if _, err := unix.Poll(fds, -1); err == nil || !errors.Is(err, unix.EINTR) {
				return
			}
		}
	}()
	return p, nil
}

func (p *parent) close() {
	if p.pidfd >= 0 {
		unix.Close(p.pidfd)
	}
}

func (p *parent) exitedWithin(d time.Duration) bool {
	select {
	case <-p.exited:
		return true
	case <-time.After(d):
		return false
	}
}

// dying reports whether the process has exited or is exiting: its leader
// thread is a zombie. (The stat is read before checking exited: if the
// pid was reaped and reused in between, exited says so.)
func (p *parent) dying() bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/stat")
	state := leaderState(stat)
	select {
	case <-p.exited:
		return true
	default:
	}
	return err != nil || state == "Z" || state == "X"
}

// leaderState is the state letter of a /proc/PID/stat line ("" if malformed).
func leaderState(stat []byte) string {
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return ""
	}
	return s[i+2 : i+3]
}
