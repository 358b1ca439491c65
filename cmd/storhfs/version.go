package main

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/urfave/cli/v2"
)

// version is stamped by the Makefile from `git describe` (-ldflags "-X
// main.version=..."); otherwise it comes from the module build info (a
// `go install ...@vX` build) or the VCS stamp of a checkout build.
var version = ""

const goFusePath = "github.com/hanwen/go-fuse/v2"

// buildVersion describes this binary: its version, the Go release that
// built it and the go-fuse version it serves with.
type buildVersion struct {
	storhfs, goRelease, goFuse string
}

func readBuildVersion() buildVersion {
	v := buildVersion{storhfs: version, goRelease: "unknown", goFuse: "unknown"}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		if v.storhfs == "" {
			v.storhfs = "unknown"
		}
		return v
	}
	v.goRelease = info.GoVersion
	for _, dep := range info.Deps {
		if dep.Path == goFusePath {
			v.goFuse = dep.Version
		}
	}
	if v.storhfs == "" {
		v.storhfs = moduleVersion(info)
	}
	return v
}

// moduleVersion is the main module's version, or for a checkout build
// "devel-<revision>" (with "-dirty" for uncommitted changes).
func moduleVersion(info *debug.BuildInfo) string {
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return "devel-" + rev
}

func (v buildVersion) print(w io.Writer) {
	fmt.Fprintf(w, "storhfs %s\n%s\ngo-fuse %s\n", v.storhfs, v.goRelease, v.goFuse)
}

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print the version of storhfs, of Go and of go-fuse (also: storhfs --version)",
		Description: `Example:
   $ storhfs version
   storhfs v0.5.0-12-gabc1234
   go1.26.8
   go-fuse v2.12.1`,
		OnUsageError: onUsageError,
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usageError(c, "version takes no arguments")
			}
			readBuildVersion().print(c.App.Writer)
			return nil
		},
	}
}
