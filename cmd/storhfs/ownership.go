package main

import (
	"fmt"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/storhfs/storhfs/fusefs"
)

// The ownership options of sshfs, rclone and libfuse: uid=, gid= and
// umask= set the owner and permission bits shown for every file
// (fusefs.Ownership), allow_root lets root in besides the user running
// storhfs, default_permissions has the kernel check those bits.

const (
	uidFlag                = "uid"
	gidFlag                = "gid"
	umaskFlag              = "umask"
	allowRootFlag          = "allow-root"
	defaultPermissionsFlag = "default-permissions"
)

// ownershipValues parse the values of the flags that take one; the -o
// forms are checked with them too (mountopts.go), so a bad value is
// refused before anything is mounted, naming the option.
var ownershipValues = map[string]func(string) (uint32, error){
	uidFlag:   func(s string) (uint32, error) { return parseID("user", s) },
	gidFlag:   func(s string) (uint32, error) { return parseID("group", s) },
	umaskFlag: parseUmask,
}

// checkOwnershipValue is the Action of a flag in ownershipValues.
func checkOwnershipValue(name string) func(*cli.Context, string) error {
	return func(c *cli.Context, value string) error {
		if _, err := ownershipValues[name](value); err != nil {
			return usageError(c, "--%s: %v", name, err)
		}
		return nil
	}
}

// parseID reads a numeric user or group id. 4294967295 is (uid_t)-1,
// "no owner" to chown(2), and never an owner.
func parseID(kind, s string) (uint32, error) {
	id, err := strconv.ParseUint(s, 10, 32)
	if err != nil || id == 1<<32-1 {
		return 0, fmt.Errorf("%q is not a %s id (a number from 0 to 4294967294)", s, kind)
	}
	return uint32(id), nil
}

// parseUmask reads an octal umask (022, 0027, 7).
func parseUmask(s string) (uint32, error) {
	mask, err := strconv.ParseUint(s, 8, 32)
	if err != nil || mask > 0o777 {
		return 0, fmt.Errorf("%q is not a umask (octal digits, 000 to 777, such as 022)", s)
	}
	return uint32(mask), nil
}

// mountOwnership is the Ownership the flags ask for; it refuses
// allow_root with allow_other, as libfuse does.
func mountOwnership(c *cli.Context) (fusefs.Ownership, error) {
	var o fusefs.Ownership
	if c.Bool(allowRootFlag) && c.Bool("allow-other") {
		return o, usageError(c, "--allow-root and --allow-other exclude each other (allow_other lets root in already)")
	}
	for _, f := range []struct {
		name string
		dst  **uint32
	}{{uidFlag, &o.UID}, {gidFlag, &o.GID}, {umaskFlag, &o.Umask}} {
		if !c.IsSet(f.name) {
			continue
		}
		v, err := ownershipValues[f.name](c.String(f.name))
		if err != nil {
			return o, usageError(c, "--%s: %v", f.name, err)
		}
		*f.dst = &v
	}
	return o, nil
}
