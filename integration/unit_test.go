package integration

import (
	"strings"
	"testing"
	"time"
)

// contribUnit is the systemd unit template shipped in contrib/.
const contribUnit = "../contrib/storhfs@.service"

// The shipped unit, run as systemd runs it (systemd does not run where the
// tests run): ExecStart with NOTIFY_SOCKET sends READY=1 once the mount
// serves, ExecStop unmounts and the mount exits 0.
func TestContribUnit(t *testing.T) {
	requireFuse(t, "fusermount3")
	unit := string(readFile(t, contribUnit))
	settings := map[string]string{}
	for _, line := range strings.Split(unit, "\n") {
		if key, value, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			settings[key] = value
		}
	}
	if settings["Type"] != "notify" {
		t.Errorf("unit Type=%q, want notify", settings["Type"])
	}
	root := demoRoot(t, 20)
	dir := newMountDir(t)
	// What systemd substitutes: %f the unescaped instance (the mountpoint),
	// ${ROOT} and $OPTIONS from /etc/storhfs/%i.conf.
	expand := func(cmd string) []string {
		var argv []string
		for _, word := range strings.Fields(cmd) {
			switch word {
			case "$OPTIONS":
				argv = append(argv, "-o", "log_level=info")
			case "${ROOT}":
				argv = append(argv, root)
			case "%f":
				argv = append(argv, dir)
			case "/usr/local/bin/storhfs":
				argv = append(argv, storhfsBin)
			default:
				argv = append(argv, word)
			}
		}
		return argv
	}
	start, stop := expand(settings["ExecStart"]), expand(settings["ExecStop"])
	if len(start) == 0 || len(stop) == 0 {
		t.Fatalf("unit has no ExecStart or ExecStop:\n%s", unit)
	}

	m, notify := startNotifiedMount(t, dir, start...)
	if got := readDatagram(t, notify, 15*time.Second); got != "READY=1" {
		t.Fatalf("ExecStart sent %q, want READY=1\n%s", got, m.log)
	}
	checkServes(t, dir, root)
	runOK(t, "", stop[0], stop[1:]...)
	if got := readDatagram(t, notify, 15*time.Second); got != "STOPPING=1" {
		t.Errorf("after ExecStop: %q, want STOPPING=1", got)
	}
	if err := m.waitExit(15 * time.Second); err != nil {
		t.Errorf("ExecStart process after ExecStop: %v, want exit 0\n%s", err, m.log)
	}
	if !strings.Contains(m.log.String(), "info: unmounted") {
		t.Errorf("log_level=info from $OPTIONS did not log the unmount:\n%s", m.log)
	}
}
