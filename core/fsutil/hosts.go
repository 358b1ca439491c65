package fsutil

import "time"

// Hosts says where the writers of a storage root may run, which decides
// what the pid in a writer marker or temp name proves (docs/format/docstore.md §5.5).
//
// storh judges a writer by kill(pid, 0) on the host that looks. On a
// storage root that several hosts share (GlusterFS, NFS, CephFS, ...) a
// marker or temp name carries the pid of a process on any of them: a pid
// that is not alive here proves nothing, and a temp file judged by it may
// be a live writer's on another host. So with ManyHosts nothing is ever
// called dead because of its pid:
//   - a "<pid>.<hex8>" marker counts as live (never unlinked, never the
//     reason for a sweep or an index check); malformed names stay stale;
//   - a pid-named temp is kept while younger than sharedTempGrace, like
//     the PID-less names are for 60 s;
//   - this process names its own temps without a pid (".p<hex16>.<n>.tmp",
//     the form of PHP's identity without getmypid), so a sweep on another
//     host, which judges our pid dead, spares them for 60 s.
type Hosts uint8

const (
	// DetectHosts is ManyHosts for a directory on a network, cluster or
	// FUSE file system (SharedFS), OneHost otherwise.
	DetectHosts Hosts = iota
	// OneHost: every writer runs on this host; storh's rule applies.
	OneHost
	// ManyHosts: writers on other hosts share the directory.
	ManyHosts
)

// sharedTempGrace is how long ManyHosts keeps a temp named by a pid it
// cannot judge. A live writer renames or removes its temp within one
// write; an hour covers a stalled writer and clock skew between hosts.
const sharedTempGrace = time.Hour

// For resolves DetectHosts for dir; OneHost and ManyHosts are returned as
// they are.
func (h Hosts) For(dir string) Hosts {
	if h != DetectHosts {
		return h
	}
	if SharedFS(dir) {
		return ManyHosts
	}
	return OneHost
}

func (h Hosts) String() string {
	switch h {
	case OneHost:
		return "one host"
	case ManyHosts:
		return "many hosts"
	}
	return "detect"
}

// pidAlive judges a pid: by kill(2) with OneHost (PIDAlive); with
// ManyHosts a pid not alive here may be alive elsewhere.
func (h Hosts) pidAlive(pid int64) bool {
	return PIDAlive(pid) || h == ManyHosts && pid >= 1 && pid <= 0x7fffffff
}
