package main

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The scale rows (issue 14, "A million records"): how long a mount of the
// data set takes to be ready, and the mount's resident memory after `ls -l`
// of the whole collection and after the kernel forgot every inode
// (drop_caches 2 makes it send FORGET for each). Run with
// `--scale --records 1000000 --log-records 0 --create 0`.
//
// The RSS after `ls -l` is what the mount holds for the inodes the kernel
// keeps. If any process drops the kernel's caches during the listing (on a
// shared machine: another cold benchmark), the kernel forgets inodes
// mid-listing and the reading comes out low; such runs are marked and left
// out of the medians.

// forgetSettle bounds each wait for the mount's memory to settle: after
// the listing and after the kernel forgot its inodes (settledRSS).
const forgetSettle = 20 * time.Second

// scaleRun is one listing of the whole collection on a fresh mount.
type scaleRun struct {
	idle, listed, forgot int64 // VmRSS: before, after `ls -l` (settled), after the forget
	justListed           int64 // VmRSS right after `ls -l`, before the runtime returned freed memory
	took                 time.Duration
	disturbed            int64 // cache drops by others during the listing
}

func runScale(bin string, d dataset, runs int) error {
	var ready []time.Duration
	for range runs {
		start := time.Now()
		m, err := startMount(bin, d.root(), d.mountpoint(), nil)
		if err != nil {
			return err
		}
		ready = append(ready, time.Since(start))
		if err := m.stop(); err != nil {
			return err
		}
	}
	slices.Sort(ready)
	fmt.Printf("scale: %d records; mount ready (start to ready line, median of %d): %v\n",
		d.records, runs, ready[len(ready)/2].Round(time.Millisecond))

	var listed, forgot []int64
	var took []time.Duration
	for i := range runs {
		r, err := measureListing(bin, d)
		if err != nil {
			return err
		}
		note := ""
		if r.disturbed > 0 {
			note = fmt.Sprintf(" (DISTURBED: caches dropped %d times during the listing; left out)", r.disturbed)
		} else {
			listed, forgot, took = append(listed, r.listed), append(forgot, r.forgot), append(took, r.took)
		}
		fmt.Printf("scale run %d: RSS idle %d MiB; after `ls -l` of all (%v) %d MiB (right after it: %d MiB); after the kernel forgot its inodes %d MiB%s\n",
			i+1, r.idle>>20, r.took.Round(time.Millisecond), r.listed>>20, r.justListed>>20, r.forgot>>20, note)
	}
	if len(listed) == 0 {
		return fmt.Errorf("scale: every run was disturbed by cache drops; run again on a quieter machine")
	}
	slices.Sort(listed)
	slices.Sort(forgot)
	slices.Sort(took)
	fmt.Printf("scale: medians of %d undisturbed runs: after `ls -l` of all (%v) %d MiB; after the kernel forgot its inodes %d MiB\n",
		len(listed), took[len(took)/2].Round(time.Millisecond), listed[len(listed)/2]>>20, forgot[len(forgot)/2]>>20)
	return nil
}

// measureListing mounts, lists the collection with `ls -l`, makes the
// kernel forget its inodes, and reads the mount's RSS along the way.
func measureListing(bin string, d dataset) (scaleRun, error) {
	var r scaleRun
	m, err := startMount(bin, d.root(), d.mountpoint(), nil)
	if err != nil {
		return r, err
	}
	defer m.stop()
	pid := m.cmd.Process.Pid
	if r.idle, err = procStatusBytes(pid, "VmRSS"); err != nil {
		return r, err
	}
	dropsBefore, err := cacheDrops()
	if err != nil {
		return r, err
	}
	start := time.Now()
	ls := exec.Command("ls", "-l", d.mountpoint()+"/"+recordsCollection)
	if err := ls.Run(); err != nil {
		return r, fmt.Errorf("ls -l: %w", err)
	}
	r.took = time.Since(start)
	if r.justListed, err = procStatusBytes(pid, "VmRSS"); err != nil {
		return r, err
	}
	if r.listed, err = settledRSS(pid, r.justListed); err != nil {
		return r, err
	}
	dropsAfter, err := cacheDrops()
	if err != nil {
		return r, err
	}
	r.disturbed = dropsAfter - dropsBefore
	if err := os.WriteFile("/proc/sys/vm/drop_caches", []byte("2\n"), 0); err != nil {
		return r, fmt.Errorf("drop the kernel's dentries and inodes (root only): %w", err)
	}
	if r.forgot, err = settledRSS(pid, r.listed); err != nil {
		return r, err
	}
	return r, m.stop()
}

// settledRSS reads pid's VmRSS every 2 s, from first, until three
// readings in a row agree to the MiB or forgetSettle has passed: FORGETs
// arrive asynchronously (after a listing past --max-record-nodes, for
// seconds while the mount's notifier works through its invalidations),
// go-fuse frees its tables in batches, and the mount hands freed memory
// back a second after the last FORGET (fusefs/memtrim.go).
func settledRSS(pid int, first int64) (int64, error) {
	last, same := first, 0
	for deadline := time.Now().Add(forgetSettle); time.Now().Before(deadline) && same < 2; {
		time.Sleep(2 * time.Second)
		rss, err := procStatusBytes(pid, "VmRSS")
		if err != nil {
			return 0, err
		}
		if rss>>20 == last>>20 {
			same++
		} else {
			same = 0
		}
		last = rss
	}
	return last, nil
}

// cacheDrops is how often any process asked the kernel to drop its caches
// since boot (/proc/vmstat drop_pagecache plus drop_slab).
func cacheDrops() (int64, error) {
	b, err := os.ReadFile("/proc/vmstat")
	if err != nil {
		return 0, err
	}
	return parseCacheDrops(b)
}

func parseCacheDrops(vmstat []byte) (int64, error) {
	var n int64
	found := 0
	for _, line := range strings.Split(string(vmstat), "\n") {
		name, value, ok := strings.Cut(line, " ")
		if !ok || (name != "drop_pagecache" && name != "drop_slab") {
			continue
		}
		v, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("vmstat %s: %w", name, err)
		}
		n += v
		found++
	}
	if found != 2 {
		return 0, fmt.Errorf("vmstat: drop_pagecache and drop_slab not both found")
	}
	return n, nil
}
