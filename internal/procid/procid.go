// Package procid names a process for as long as it lives: its id and the
// time it started (a pid alone is reused once the process is gone).
//
// A FUSE request carries the calling thread's id (in_header.pid), not its
// process's: Of maps it to the process through /proc.
package procid

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// ID is one process: its thread group id and its start time in clock
// ticks since boot (/proc/<pid>/stat, field 22). The zero ID is no process.
type ID struct {
	PID   int
	Start uint64
}

// Of returns the process of thread tid.
func Of(tid int) (ID, error) {
	if tid <= 0 {
		return ID{}, fmt.Errorf("procid: no process for thread %d", tid)
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", tid))
	if err != nil {
		return ID{}, fmt.Errorf("procid: %w", err)
	}
	pid, err := tgidOf(status)
	if err != nil {
		return ID{}, fmt.Errorf("procid: /proc/%d/status: %w", tid, err)
	}
	start, err := startOf(pid)
	if err != nil {
		return ID{}, err
	}
	return ID{PID: pid, Start: start}, nil
}

// Alive reports whether the process still runs (a zombie counts as gone:
// its descriptors are closed).
func (id ID) Alive() bool {
	if id.PID <= 0 {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", id.PID))
	if err != nil {
		return false
	}
	state, start, err := parseStat(stat)
	return err == nil && start == id.Start && state != 'Z' && state != 'X'
}

func startOf(pid int) (uint64, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("procid: %w", err)
	}
	_, start, err := parseStat(stat)
	if err != nil {
		return 0, fmt.Errorf("procid: /proc/%d/stat: %w", pid, err)
	}
	return start, nil
}

// tgidOf reads the "Tgid:" line of /proc/<tid>/status.
func tgidOf(status []byte) (int, error) {
	for line := range bytes.SplitSeq(status, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("Tgid:")); ok {
			return strconv.Atoi(string(bytes.TrimSpace(v)))
		}
	}
	return 0, fmt.Errorf("no Tgid line")
}

// parseStat reads the state (field 3) and start time (field 22) of a
// /proc/<pid>/stat line. The command name (field 2) is in parentheses and
// may hold anything, parentheses and spaces included: fields are counted
// after its last ')'.
func parseStat(stat []byte) (state byte, start uint64, err error) {
	end := bytes.LastIndexByte(stat, ')')
	if end < 0 {
		return 0, 0, fmt.Errorf("no command name")
	}
	fields := bytes.Fields(stat[end+1:])
	const startField = 22 - 3 // fields[0] is field 3
	if len(fields) <= startField || len(fields[0]) != 1 {
		return 0, 0, fmt.Errorf("%d fields after the command name", len(fields))
	}
	start, err = strconv.ParseUint(string(fields[startField]), 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("start time: %w", err)
	}
	return fields[0][0], start, nil
}
