package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// One option parser serves `storhfs mount -o ...` and the mount(8) helper
// (fstab.go), so the two cannot drift: each -o item becomes a flag of the
// mount command. Every mount flag has an -o form, its name with "_" for
// "-" (no_watch, max_buffer_mb=N, log_file=FILE, and so the FUSE options
// allow_root, default_permissions, uid=N, gid=N, umask=NNN); the other
// FUSE names people put in /etc/fstab are aliases (ro, rw, nonempty,
// log=FILE); the generic
// options mount(8) and systemd handle themselves are accepted and ignored.

// optionAliases maps fstab option names to mount flags.
var optionAliases = map[string]string{
	"ro":       "read-only",
	"nonempty": allowNonEmptyFlag,
	"log":      logFileFlag,
}

// ignoredMountOptions are options that mount(8), fuse3's mount.fuse or
// systemd pass or read themselves; storhfs accepts them and does nothing.
// The mount is always nosuid,nodev (records are data, never programs).
var ignoredMountOptions = map[string]bool{
	"defaults": true, "auto": true, "noauto": true, "nofail": true, "_netdev": true,
	"user": true, "nouser": true, "users": true, "owner": true, "group": true,
	"dev": true, "nodev": true, "suid": true, "nosuid": true, "exec": true, "noexec": true,
	"async": true, "atime": true, "noatime": true, "relatime": true, "strictatime": true,
}

// optionFlags translates a comma-separated -o list into mount flags
// ("--name" or "--name=value"); with sloppy (mount -s) unknown options are
// ignored instead of refused.
func optionFlags(opts string, flags []cli.Flag, sloppy bool) ([]string, error) {
	var out []string
	for _, opt := range strings.Split(opts, ",") {
		name, value, hasValue := strings.Cut(opt, "=")
		switch {
		case opt == "" || ignoredMountOptions[opt] || strings.HasPrefix(opt, "x-") || name == "comment":
			continue
		case opt == "rw":
			out = append(out, "--read-only=false")
			continue
		}
		flag, takesValue, ok := mountFlag(name, flags)
		switch {
		case ok && !takesValue && !hasValue:
			out = append(out, "--"+flag)
		case ok && takesValue && hasValue && value != "":
			if parse := ownershipValues[flag]; parse != nil {
				if _, err := parse(value); err != nil {
					return nil, fmt.Errorf("mount option %s: %w", opt, err)
				}
			}
			out = append(out, "--"+flag+"="+value)
		case sloppy:
		default:
			return nil, fmt.Errorf("unknown mount option %q (storhfs takes %s)", opt, optionNames(flags))
		}
	}
	return out, nil
}

// mountFlag finds the visible mount flag an option names.
func mountFlag(option string, flags []cli.Flag) (name string, takesValue, ok bool) {
	name = optionAliases[option]
	if name == "" {
		name = strings.ReplaceAll(option, "_", "-")
	}
	for _, f := range flags {
		if vf, isVisible := f.(cli.VisibleFlag); isVisible && !vf.IsVisible() {
			continue
		}
		for _, n := range f.Names() {
			if n == name && !strings.Contains(option, "-") {
				df, _ := f.(cli.DocGenerationFlag)
				return name, df != nil && df.TakesValue(), true
			}
		}
	}
	return "", false, false
}

// optionNames lists the -o forms of the mount flags, for error messages.
func optionNames(flags []cli.Flag) string {
	names := []string{"ro", "rw", "nonempty", "log=FILE"}
	for _, f := range flags {
		if vf, ok := f.(cli.VisibleFlag); ok && !vf.IsVisible() {
			continue
		}
		name := strings.ReplaceAll(f.Names()[0], "-", "_")
		if df, ok := f.(cli.DocGenerationFlag); ok && df.TakesValue() {
			name += "=..."
		}
		names = append(names, name)
	}
	return strings.Join(names, ", ") + " and the generic mount options"
}

// mountCommandArgs rewrites the arguments after `storhfs mount` so that
// flags may come after ROOT and MOUNTPOINT and -o lists are flags:
// urfave/cli, like Go's flag package, stops at the first argument that is
// no flag. "--" still ends the flags.
func mountCommandArgs(args []string, flags []cli.Flag) ([]string, error) {
	var flagArgs, positional []string
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--":
			positional = append(positional, args[i+1:]...)
			i = len(args)
		case arg == "-o":
			if i+1 == len(args) {
				return nil, fmt.Errorf("option -o needs a value (-o opt[,opt...])")
			}
			i++
			translated, err := optionFlags(args[i], flags, false)
			if err != nil {
				return nil, err
			}
			flagArgs = append(flagArgs, translated...)
		case strings.HasPrefix(arg, "-") && arg != "-":
			flagArgs = append(flagArgs, arg)
			if name := strings.TrimLeft(arg, "-"); !strings.Contains(name, "=") && takesValue(name, flags) && i+1 < len(args) {
				i++
				flagArgs = append(flagArgs, args[i])
			}
		default:
			positional = append(positional, arg)
		}
	}
	return append(append(flagArgs, "--"), positional...), nil
}

func takesValue(name string, flags []cli.Flag) bool {
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				df, ok := f.(cli.DocGenerationFlag)
				return ok && df.TakesValue()
			}
		}
	}
	return false
}
