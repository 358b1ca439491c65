package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/storhfs/storhfs/internal/lockedbuf"
)

// mountProc is a running `storhfs mount ROOT MOUNTPOINT` process.
type mountProc struct {
	cmd        *exec.Cmd
	mountpoint string
	stderr     *lockedbuf.Buffer // readable while the process writes it
	exited     chan struct{}
}

const mountReadyTimeout = 30 * time.Second

// startMount runs bin as `mount FLAGS... root mountpoint` and waits for
// its one "mounted" line on stdout.
func startMount(bin, root, mountpoint string, flags []string) (*mountProc, error) {
	args := slices.Concat([]string{"mount"}, flags, []string{root, mountpoint})
	return startServer(exec.Command(bin, args...), mountpoint)
}

// startServer starts cmd, a process that mounts at mountpoint, serves it
// and unmounts on SIGTERM, and waits for its first stdout line, which must
// contain "mounted".
func startServer(cmd *exec.Cmd, mountpoint string) (*mountProc, error) {
	bin := cmd.Path
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr := &lockedbuf.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	m := &mountProc{cmd: cmd, mountpoint: mountpoint, stderr: stderr, exited: make(chan struct{})}
	ready := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		first := true
		for sc.Scan() {
			if first {
				first = false
				if strings.Contains(sc.Text(), "mounted") {
					ready <- nil
				} else {
					ready <- fmt.Errorf("unexpected first line from the mount: %q", sc.Text())
				}
			}
		}
		if first {
			ready <- errors.New("the mount printed nothing")
		}
	}()
	go func() { _ = cmd.Wait(); close(m.exited) }()
	select {
	case err = <-ready:
	case <-m.exited:
		err = errors.New("the mount exited")
	case <-time.After(mountReadyTimeout):
		err = fmt.Errorf("the mount was not ready within %v", mountReadyTimeout)
	}
	if err != nil {
		m.stop()
		return nil, fmt.Errorf("%w; stderr: %s", err, strings.TrimSpace(stderr.String()))
	}
	return m, nil
}

// stop unmounts: SIGTERM (the mount unmounts itself), then a lazy umount
// and SIGKILL if it does not exit in time. Safe to call twice.
func (m *mountProc) stop() error {
	select {
	case <-m.exited:
		return nil
	default:
	}
	_ = m.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-m.exited:
		return nil
	case <-time.After(15 * time.Second):
	}
	_ = exec.Command("umount", "-l", m.mountpoint).Run()
	_ = m.cmd.Process.Kill()
	<-m.exited
	return fmt.Errorf("mount %s did not stop on SIGTERM; lazily unmounted and killed", m.mountpoint)
}

// peakRSS is the mount process's VmHWM in bytes.
func (m *mountProc) peakRSS() (int64, error) {
	return procStatusBytes(m.cmd.Process.Pid, "VmHWM")
}

// procStatusBytes reads a "<field>:  <n> kB" line of /proc/<pid>/status.
func procStatusBytes(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	return parseStatusField(b, field)
}

func parseStatusField(status []byte, field string) (int64, error) {
	for _, line := range strings.Split(string(status), "\n") {
		name, rest, ok := strings.Cut(line, ":")
		if !ok || name != field {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("status field %s: unexpected %q", field, rest)
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("status field %s: %w", field, err)
		}
		return kb << 10, nil
	}
	return 0, fmt.Errorf("status field %s not found", field)
}

// isMounted reports whether path is a mount point in /proc/self/mountinfo.
func isMounted(path string) bool {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 4 && f[4] == path {
			return true
		}
	}
	return false
}
