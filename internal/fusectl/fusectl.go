// Package fusectl finds the FUSE connection behind a mount point and aborts
// it through the kernel's fusectl file system
// (/sys/fs/fuse/connections/<minor>/abort). Aborting fails every request
// the connection has pending or will get, with ENOTCONN, whether or not the
// serving process still lives: it is the one recovery that wakes processes
// stuck on a dead or hung FUSE server, which `umount -l` does not.
//
// The mount watchdog, `storhfs unmount --force` and the tests share it.
package fusectl

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// ConnectionsDir is where fusectl is mounted: one directory per live FUSE
// connection, named by the device minor of the mount's st_dev.
const ConnectionsDir = "/sys/fs/fuse/connections"

// FsType is the mountinfo file system type of a storhfs mount.
const FsType = "fuse.storhfs"

// ErrNotMounted reports a mount point that mountinfo does not list.
var ErrNotMounted = errors.New("not mounted")

// Entry is one line of /proc/self/mountinfo.
type Entry struct {
	Major, Minor uint32
	Mountpoint   string
	FsType       string
	Source       string
}

// ParseMountinfo reads the format of /proc/<pid>/mountinfo
// (proc(5)): "id parent major:minor root mountpoint options [optional...] - fstype source superoptions".
func ParseMountinfo(r io.Reader) ([]Entry, error) {
	var entries []Entry
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		e, err := parseLine(line)
		if err != nil {
			return nil, fmt.Errorf("mountinfo line %q: %w", line, err)
		}
		entries = append(entries, e)
	}
	return entries, sc.Err()
}

func parseLine(line string) (Entry, error) {
	fields := strings.Fields(line)
	sep := -1
	for i, f := range fields {
		if f == "-" && i >= 6 {
			sep = i
			break
		}
	}
	if sep < 0 || len(fields) < sep+3 {
		return Entry{}, errors.New("malformed")
	}
	majMin := strings.SplitN(fields[2], ":", 2)
	if len(majMin) != 2 {
		return Entry{}, errors.New("malformed major:minor")
	}
	major, err1 := strconv.ParseUint(majMin[0], 10, 32)
	minor, err2 := strconv.ParseUint(majMin[1], 10, 32)
	if err1 != nil || err2 != nil {
		return Entry{}, errors.New("malformed major:minor")
	}
	return Entry{
		Major: uint32(major), Minor: uint32(minor),
		Mountpoint: unescape(fields[4]),
		FsType:     fields[sep+1],
		Source:     unescape(fields[sep+2]),
	}, nil
}

// unescape decodes mountinfo's octal escapes (\040 for a space, \011, \012, \134).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Lookup returns the topmost mount at mountpoint (an absolute, clean path
// as mountinfo shows it) in entries.
func Lookup(entries []Entry, mountpoint string) (Entry, bool) {
	var found Entry
	ok := false
	for _, e := range entries {
		if e.Mountpoint == mountpoint {
			found, ok = e, true // later lines are mounted on top
		}
	}
	return found, ok
}

// Mounts reads /proc/self/mountinfo. It never touches a mounted file
// system, so it cannot hang on a dead FUSE server.
func Mounts() ([]Entry, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseMountinfo(f)
}

// MinorOf returns the connection minor of the storhfs mount at mountpoint.
// It refuses a mount point that is not a storhfs mount (wrong type, or not
// mounted), so nothing else is ever aborted.
func MinorOf(mountpoint string) (uint32, error) {
	entries, err := Mounts()
	if err != nil {
		return 0, err
	}
	return storhfsMinor(entries, mountpoint)
}

func storhfsMinor(entries []Entry, mountpoint string) (uint32, error) {
	e, ok := Lookup(entries, mountpoint)
	if !ok {
		return 0, fmt.Errorf("%s: %w", mountpoint, ErrNotMounted)
	}
	if e.FsType != FsType || e.Major != 0 {
		return 0, fmt.Errorf("%s is a %s mount (%d:%d), not a storhfs mount", mountpoint, e.FsType, e.Major, e.Minor)
	}
	return e.Minor, nil
}

// Connection is one FUSE connection's fusectl directory.
type Connection struct {
	Dir   string // fusectl mount, normally ConnectionsDir
	Minor uint32
}

// Conn is the connection minor under ConnectionsDir.
func Conn(minor uint32) Connection { return Connection{Dir: ConnectionsDir, Minor: minor} }

func (c Connection) path() string {
	return filepath.Join(c.Dir, strconv.FormatUint(uint64(c.Minor), 10))
}

// Exists reports whether the kernel still has the connection (its
// superblock is not destroyed yet). Always false when fusectl is not
// mounted at c.Dir.
func (c Connection) Exists() bool {
	_, err := os.Stat(c.path())
	return err == nil
}

// Waiting is the number of requests the kernel sent on the connection and
// has no answer for yet.
func (c Connection) Waiting() (int, error) {
	b, err := os.ReadFile(filepath.Join(c.path(), "waiting"))
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, fmt.Errorf("FUSE connection %d waiting: %w", c.Minor, err)
	}
	return n, nil
}

// Abort fails every pending and future request of the connection. Aborting
// an already aborted connection is harmless; a connection that no longer
// exists is reported as os.ErrNotExist.
func (c Connection) Abort() error {
	f, err := os.OpenFile(filepath.Join(c.path(), "abort"), os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("abort FUSE connection %d: %w", c.Minor, err)
	}
	_, werr := f.WriteString("1")
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		return fmt.Errorf("abort FUSE connection %d: %w", c.Minor, err)
	}
	return nil
}

// EnsureMounted mounts fusectl at ConnectionsDir unless mountinfo already
// lists it there (systemd normally mounts it; containers often do not).
// Mounting needs CAP_SYS_ADMIN.
func EnsureMounted() error {
	entries, err := Mounts()
	if err != nil {
		return err
	}
	if e, ok := Lookup(entries, ConnectionsDir); ok && e.FsType == "fusectl" {
		return nil
	}
	if err := unix.Mount("fusectl", ConnectionsDir, "fusectl", 0, ""); err != nil && !errors.Is(err, unix.EBUSY) {
		return fmt.Errorf("mount fusectl at %s: %w", ConnectionsDir, err)
	}
	return nil
}

// Abort aborts connection minor, mounting fusectl first if needed.
func Abort(minor uint32) error {
	if err := EnsureMounted(); err != nil {
		return err
	}
	return Conn(minor).Abort()
}
