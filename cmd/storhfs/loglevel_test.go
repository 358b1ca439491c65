package main

import (
	"bytes"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
)

func TestParseLogLevel(t *testing.T) {
	for in, want := range map[string]slog.Level{"error": slog.LevelError, "warn": slog.LevelWarn, "info": slog.LevelInfo, "debug": slog.LevelDebug} {
		if got, err := parseLogLevel(in); err != nil || got != want {
			t.Errorf("parseLogLevel(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := parseLogLevel("verbose"); err == nil || !strings.Contains(err.Error(), `"verbose"`) {
		t.Errorf("parseLogLevel(verbose) = %v, want an error naming it", err)
	}
}

// --log-level has its -o form, and both forms reach the same flag.
func TestLogLevelOption(t *testing.T) {
	got, err := mountCommandArgs([]string{"/r", "/m", "-o", "log_level=debug", "--log-level", "info"}, mountCommand().Flags)
	want := []string{"--log-level=debug", "--log-level", "info", "--", "/r", "/m"}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("mountCommandArgs = %q, %v; want %q", got, err, want)
	}
	req, err := parseHelperArgs([]string{"/r", "/m", "-o", "log_level=info,log=/tmp/x.log"})
	if err != nil || !reflect.DeepEqual(req.Flags, []string{"--log-level=info"}) || req.LogPath != "/tmp/x.log" {
		t.Errorf("parseHelperArgs = %+v, %v", req, err)
	}
}

// Records below the level are dropped; the rest are one line each, with
// the level and the attributes as key=value.
func TestLineHandler(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(newLineHandler(slog.LevelInfo, streamSink(&buf)))
	log.Debug("hidden")
	log.With("path", "pages").Info("commit", "id", "x1", "outcome", "stored")
	log.Warn("create a b refused:\nreason", "note", "two words")
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("got %d lines, want 2:\n%s", len(lines), buf.String())
	}
	stamp := len(time.DateTime)
	for i, want := range []string{
		" storhfs: info: commit path=pages id=x1 outcome=stored",
		` storhfs: warn: create a b refused: reason note="two words"`,
	} {
		if len(lines[i]) < stamp || lines[i][stamp:] != want {
			t.Errorf("line %d = %q, want a time stamp then %q", i, lines[i], want)
		}
	}
}

// --daemon hands the child every flag set on its command line, but
// --daemon itself.
func TestDaemonRequest(t *testing.T) {
	cmd := mountCommand()
	var got helperRequest
	cmd.Action = func(c *cli.Context) error {
		got = daemonRequest(c)
		return nil
	}
	app := &cli.App{Commands: []*cli.Command{cmd}}
	if err := app.Run([]string{"storhfs", "mount", "--daemon", "--read-only", "--log-level", "info", "--log-file", "/l", "--max-buffer-mb", "64", "/r", "/m"}); err != nil {
		t.Fatal(err)
	}
	want := helperRequest{Source: "/r", Mountpoint: "/m", LogPath: "/l",
		Flags: []string{"--read-only=true", "--log-file=/l", "--log-level=info", "--max-buffer-mb=64"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("daemonRequest = %+v, want %+v", got, want)
	}
}

func TestExitCodeOfCoded(t *testing.T) {
	if got := exitCodeOf(coded(exitNoFuse, errString("no /dev/fuse"))); got != exitNoFuse {
		t.Errorf("exit code %d, want %d", got, exitNoFuse)
	}
	// An error that has a code keeps it.
	if got := exitCodeOf(coded(exitMountFailed, coded(exitAlreadyMounted, errString("x")))); got != exitAlreadyMounted {
		t.Errorf("exit code %d, want %d", got, exitAlreadyMounted)
	}
	if coded(exitMountFailed, nil) != nil {
		t.Error("coded(nil) is not nil")
	}
}

type errString string

func (e errString) Error() string { return string(e) }
