package main

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"time"
)

// The scale rows (issue 14, "A million records"): how long a mount of the
// data set takes to be ready, and the mount's resident memory after `ls -l`
// of the whole collection and after the kernel forgot every inode
// (drop_caches 2 makes it send FORGET for each). Run with
// `--scale --records 1000000 --log-records 0 --create 0`.

// forgetSettle bounds the wait for the mount's memory to settle after the
// kernel forgot its inodes (FORGETs are asynchronous, and go-fuse frees its
// tables in batches).
const forgetSettle = 20 * time.Second

func runScale(bin string, d dataset, runs int) error {
	var ready []time.Duration
	for range runs {
		start := time.Now()
		m, err := startMount(bin, d.root(), d.mountpoint(), false)
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

	m, err := startMount(bin, d.root(), d.mountpoint(), false)
	if err != nil {
		return err
	}
	defer m.stop()
	idle, err := procStatusBytes(m.cmd.Process.Pid, "VmRSS")
	if err != nil {
		return err
	}
	start := time.Now()
	ls := exec.Command("ls", "-l", d.mountpoint()+"/"+recordsCollection)
	if err := ls.Run(); err != nil {
		return fmt.Errorf("ls -l: %w", err)
	}
	took := time.Since(start)
	listed, err := procStatusBytes(m.cmd.Process.Pid, "VmRSS")
	if err != nil {
		return err
	}
	if err := os.WriteFile("/proc/sys/vm/drop_caches", []byte("2\n"), 0); err != nil {
		return fmt.Errorf("drop the kernel's dentries and inodes (root only): %w", err)
	}
	forgot := listed
	for deadline := time.Now().Add(forgetSettle); time.Now().Before(deadline); {
		time.Sleep(2 * time.Second)
		rss, err := procStatusBytes(m.cmd.Process.Pid, "VmRSS")
		if err != nil {
			return err
		}
		settled := rss>>20 == forgot>>20
		forgot = rss
		if settled {
			break
		}
	}
	fmt.Printf("scale: RSS idle %d MiB; after `ls -l` of all (%v) %d MiB; after the kernel forgot its inodes %d MiB\n",
		idle>>20, took.Round(time.Millisecond), listed>>20, forgot>>20)
	return nil
}
