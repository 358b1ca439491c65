package main

import (
	"net"
	"path/filepath"
	"testing"
	"time"
)

func TestSdNotify(t *testing.T) {
	for _, abstract := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "notify")
		env, listen := path, path
		if abstract {
			env, listen = "@storhfs-test-"+filepath.Base(filepath.Dir(path)), "\x00storhfs-test-"+filepath.Base(filepath.Dir(path))
		}
		conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: listen, Net: "unixgram"})
		if err != nil {
			t.Fatal(err)
		}
		t.Setenv(notifySocketEnv, env)
		if err := sdNotify(notifyReady); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 64)
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		n, err := conn.Read(buf)
		conn.Close()
		if err != nil || string(buf[:n]) != notifyReady {
			t.Errorf("abstract=%v: got %q, %v; want %q", abstract, buf[:n], err, notifyReady)
		}
	}
	t.Setenv(notifySocketEnv, "")
	if err := sdNotify(notifyReady); err != nil {
		t.Errorf("without %s: %v", notifySocketEnv, err)
	}
}
