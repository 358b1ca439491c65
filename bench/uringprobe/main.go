// Command uringprobe measures what FUSE over io_uring would change for
// warm reads: it serves the regular files under -src as one flat,
// read-only directory from memory, over either transport, with the same
// answers (1 h entry and attribute timeouts; OPEN replies KEEP_CACHE, and
// NOFLUSH unless -flush), so the two differ only in how requests travel:
//
//	classic: read(2) a request from /dev/fuse, write(2) the reply
//	uring:   one io_uring per CPU queue; a request arrives as a completion,
//	         its reply goes back with the next fetch in one submission
//
// It mounts on -mnt, prints "ready", and serves until SIGINT/SIGTERM.
// Linux only; needs root and, for -transport uring, the fuse module's
// enable_uring parameter (the probe sets it and restores it on exit).
package main

import (
	"flag"
	"fmt"
	"io/fs"
	"log"
	"os"
	"os/signal"
	"path/filepath"

	"golang.org/x/sys/unix"
)

func main() {
	src := flag.String("src", "", "directory whose regular files are served (recursively, flattened)")
	mnt := flag.String("mnt", "", "mount point")
	transport := flag.String("transport", "classic", "classic or uring")
	flush := flag.Bool("flush", false, "let the kernel send FLUSH on close (no FOPEN_NOFLUSH)")
	depth := flag.Int("depth", 4, "uring: entries per CPU queue")
	pin := flag.Bool("pin", true, "uring: pin each queue's thread to its CPU")
	hang := flag.String("hang", "", "a served file whose OPEN never returns (to test aborts)")
	flag.Parse()
	if *src == "" || *mnt == "" || (*transport != "classic" && *transport != "uring") {
		flag.Usage()
		os.Exit(2)
	}
	tree, err := loadTree(*src)
	if err != nil {
		log.Fatal(err)
	}
	tree.noflush = !*flush
	tree.hang = tree.index[*hang]
	conn := &conn{tree: tree, wantUring: *transport == "uring"}
	if conn.wantUring {
		if conn.restore, err = enableUring(); err != nil {
			log.Fatal(err)
		}
	}
	if conn.dev, err = mount(*mnt); err != nil {
		log.Fatal(err)
	}
	if err := conn.init(); err != nil {
		log.Fatal(err)
	}
	if conn.wantUring {
		if err := conn.startRings(*depth, *pin); err != nil {
			log.Fatal(err)
		}
		conn.restore() // a connection keeps io_uring once it has it
		conn.restore = nil
	}
	go conn.serveDev()
	fmt.Println("ready")
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, unix.SIGINT, unix.SIGTERM)
	<-sig
	unix.Unmount(*mnt, unix.MNT_DETACH)
	conn.exit(0)
}

// tree is the served directory: node 1 is the root, node i+2 is files[i].
type tree struct {
	names   []string
	data    [][]byte
	index   map[string]uint64
	noflush bool
	hang    uint64 // node whose OPEN never returns (-hang)
}

func loadTree(src string) (*tree, error) {
	t := &tree{index: map[string]uint64{}}
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if _, dup := t.index[d.Name()]; dup {
			return nil
		}
		t.index[d.Name()] = uint64(len(t.names) + 2)
		t.names = append(t.names, d.Name())
		t.data = append(t.data, b)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", src, err)
	}
	return t, nil
}

func enableUring() (restore func(), err error) {
	const param = "/sys/module/fuse/parameters/enable_uring"
	old, err := os.ReadFile(param)
	if err != nil {
		return nil, fmt.Errorf("FUSE over io_uring: %w", err)
	}
	if err := os.WriteFile(param, []byte("Y"), 0); err != nil {
		return nil, fmt.Errorf("FUSE over io_uring: %w", err)
	}
	return func() { os.WriteFile(param, old, 0) }, nil
}

func mount(mnt string) (*os.File, error) {
	fd, err := unix.Open("/dev/fuse", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open /dev/fuse: %w", err)
	}
	opts := fmt.Sprintf("fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other", fd)
	if err := unix.Mount("uringprobe", mnt, "fuse.uringprobe", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_RDONLY, opts); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("mount %s: %w", mnt, err)
	}
	return os.NewFile(uintptr(fd), "/dev/fuse"), nil
}

