package main

import (
	"fmt"
	"net"
	"os"
)

// systemd's readiness protocol (sd_notify(3)): a service of Type=notify
// sends "READY=1" as one datagram to the unix socket named by
// $NOTIFY_SOCKET once it serves, and "STOPPING=1" when it starts to shut
// down. A name starting with "@" is in the abstract namespace.

const notifySocketEnv = "NOTIFY_SOCKET"

const (
	notifyReady    = "READY=1"
	notifyStopping = "STOPPING=1"
)

// sdNotify sends state to $NOTIFY_SOCKET; without it, it does nothing.
func sdNotify(state string) error {
	name := os.Getenv(notifySocketEnv)
	if name == "" {
		return nil
	}
	if name[0] == '@' {
		name = "\x00" + name[1:]
	}
	conn, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: name, Net: "unixgram"})
	if err != nil {
		return fmt.Errorf("notify systemd (%s=%s): %w", notifySocketEnv, os.Getenv(notifySocketEnv), err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte(state)); err != nil {
		return fmt.Errorf("notify systemd (%s=%s): %w", notifySocketEnv, os.Getenv(notifySocketEnv), err)
	}
	return nil
}

// notifyStoppingOrWarn tells systemd the mount is going away; a failure is
// only reported, never a reason not to unmount.
func notifyStoppingOrWarn() {
	if err := sdNotify(notifyStopping); err != nil {
		fmt.Fprintln(os.Stderr, "storhfs:", err)
	}
}
