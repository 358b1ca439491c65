package queue

// The line guard (<LEN> TAB <HASH> TAB <JSON> LF) lives in core/guard,
// shared with SegmentedLog; queue.log is read with guard.Queue() rules
// (docs/format/queue.md §2.2 steps 1-4). These names stay for existing callers.

import "github.com/storhfs/storhfs/core/guard"

// GuardFault says why a line failed the guard (see guard.Fault).
type GuardFault = guard.Fault

const (
	GuardOK        = guard.OK
	GuardTorn      = guard.Torn
	GuardMalformed = guard.Malformed
	GuardCorrupt   = guard.Corrupt
)

// AppendGuarded appends the framed line for json to dst (guard.Append).
func AppendGuarded(dst, json []byte) []byte { return guard.Append(dst, json) }

// ParseGuarded checks one raw queue.log line and returns its JSON part
// (guard.Queue().Parse).
func ParseGuarded(line []byte) ([]byte, GuardFault) { return guard.Queue().Parse(line) }
