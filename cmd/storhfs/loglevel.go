package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"log/syslog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"
)

// The mount's log: --log-level picks how much (error, warn, info, debug),
// --log-file where; without a log file a foreground mount logs to standard
// error and a daemonised one (--daemon, the mount(8) helper) to syslog,
// which journald collects.

const (
	logLevelFlag     = "log-level"
	syslogSocketFlag = "syslog-socket" // hidden: tests point syslog at their own socket
	defaultLogLevel  = "warn"
)

// parseLogLevel maps a --log-level value to its slog level.
func parseLogLevel(s string) (slog.Level, error) {
	switch s {
	case "error":
		return slog.LevelError, nil
	case "warn":
		return slog.LevelWarn, nil
	case "info":
		return slog.LevelInfo, nil
	case "debug":
		return slog.LevelDebug, nil
	}
	return 0, fmt.Errorf("unknown log level %q (use error, warn, info or debug)", s)
}

// checkLogLevel refuses a bad --log-level before anything is mounted.
func checkLogLevel(c *cli.Context, value string) error {
	if _, err := parseLogLevel(value); err != nil {
		return usageError(c, "%v", err)
	}
	return nil
}

// mountLog is the mount's leveled log and its closer. --debug is the same
// as --log-level debug.
func mountLog(c *cli.Context) (*slog.Logger, func(), error) {
	level, err := parseLogLevel(c.String(logLevelFlag))
	if err != nil {
		return nil, nil, usageError(c, "%v", err)
	}
	if c.Bool("debug") {
		level = slog.LevelDebug
	}
	if path := c.String(logFileFlag); path != "" {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o640)
		if err != nil {
			return nil, nil, coded(exitMountLogFailure, fmt.Errorf("log file: %w", err))
		}
		return slog.New(newLineHandler(level, streamSink(f))), func() { f.Close() }, nil
	}
	// The helper's child without log=FILE: its stderr becomes /dev/null.
	if c.String(detachedLogFlag) == os.DevNull {
		w, err := dialSyslog(c.String(syslogSocketFlag))
		if err == nil {
			return slog.New(newLineHandler(level, syslogSink(w))), func() { w.Close() }, nil
		}
		// No syslog (a container): say so while stderr still reaches the
		// user, and mount anyway; the messages are then discarded.
		fmt.Fprintf(os.Stderr, "storhfs: no syslog (%v): the mount's messages are discarded; pass --log-file FILE (-o log=FILE) to keep them\n", err)
	}
	return slog.New(newLineHandler(level, streamSink(os.Stderr))), func() {}, nil
}

// dialSyslog connects to the local syslog (/dev/log), or to the unix
// datagram socket path when one is given.
func dialSyslog(path string) (*syslog.Writer, error) {
	if path == "" {
		return syslog.New(syslog.LOG_DAEMON|syslog.LOG_INFO, "storhfs")
	}
	return syslog.Dial("unixgram", path, syslog.LOG_DAEMON|syslog.LOG_INFO, "storhfs")
}

// A logSink writes one formatted record ("msg key=value ...").
type logSink func(level slog.Level, t time.Time, line string) error

// streamSink writes records as lines "2006/01/02 15:04:05 storhfs: warn: msg k=v".
func streamSink(w io.Writer) logSink {
	var mu sync.Mutex
	return func(level slog.Level, t time.Time, line string) error {
		mu.Lock()
		defer mu.Unlock()
		_, err := fmt.Fprintf(w, "%s storhfs: %s: %s\n", t.Format("2006/01/02 15:04:05"), strings.ToLower(level.String()), line)
		return err
	}
}

// syslogSink sends each record with the syslog priority of its level;
// syslog adds the time and the tag.
func syslogSink(w *syslog.Writer) logSink {
	return func(level slog.Level, _ time.Time, line string) error {
		switch {
		case level >= slog.LevelError:
			return w.Err(line)
		case level >= slog.LevelWarn:
			return w.Warning(line)
		case level >= slog.LevelInfo:
			return w.Info(line)
		}
		return w.Debug(line)
	}
}

// lineHandler formats records as one line each: the message, then the
// attributes as key=value (groups flattened as group.key).
type lineHandler struct {
	level slog.Level
	sink  logSink
	attrs string // preformatted " k=v" of WithAttrs
	group string // prefix of keys, "" or "g."
}

var _ slog.Handler = (*lineHandler)(nil)

func newLineHandler(level slog.Level, sink logSink) *lineHandler {
	return &lineHandler{level: level, sink: sink}
}

func (h *lineHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }

func (h *lineHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(strings.ReplaceAll(r.Message, "\n", " "))
	b.WriteString(h.attrs)
	r.Attrs(func(a slog.Attr) bool {
		writeAttr(&b, h.group, a)
		return true
	})
	return h.sink(r.Level, r.Time, b.String())
}

func (h *lineHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	var b strings.Builder
	for _, a := range attrs {
		writeAttr(&b, h.group, a)
	}
	h2 := *h
	h2.attrs += b.String()
	return &h2
}

func (h *lineHandler) WithGroup(name string) slog.Handler {
	h2 := *h
	h2.group += name + "."
	return &h2
}

// writeAttr appends " key=value", the value quoted when it holds spaces
// or quotes.
func writeAttr(b *strings.Builder, group string, a slog.Attr) {
	if a.Equal(slog.Attr{}) {
		return
	}
	v := a.Value.Resolve().String()
	if v == "" || strings.ContainsAny(v, " \t\n\"=") {
		v = fmt.Sprintf("%q", v)
	}
	fmt.Fprintf(b, " %s%s=%s", group, a.Key, v)
}
