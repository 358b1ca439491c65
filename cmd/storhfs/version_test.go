package main

import (
	"regexp"
	"strings"
	"testing"
)

func TestVersionNamesStorhfsGoAndGoFuse(t *testing.T) {
	want := regexp.MustCompile(`^storhfs \S+\ngo1\.\S+\ngo-fuse v2\.\S+\n$`)
	for _, args := range [][]string{{"--version"}, {"version"}} {
		if got := mustRun(t, args...); !want.MatchString(got) {
			t.Errorf("storhfs %v printed %q", args, got)
		}
	}
	if r := runCLI(t, "", "version", "x"); r.code != exitUsage {
		t.Errorf("version x: exit %d, want %d", r.code, exitUsage)
	}
}

// The completion scripts ask the binary itself, so every command shows.
func TestCompletion(t *testing.T) {
	commands := mustRun(t, "--generate-bash-completion")
	for _, name := range []string{"mount", "export", "verify", "version", "completion"} {
		if !strings.Contains(commands, name+"\n") {
			t.Errorf("completion candidates lack %s:\n%s", name, commands)
		}
	}
	// The mount's own flags too (its argument rewriting once hid them).
	if flags := mustRun(t, "mount", "-", "--generate-bash-completion"); !strings.Contains(flags, "--read-only") || !strings.Contains(flags, "--uid") {
		t.Errorf("completion of storhfs mount lacks its flags:\n%s", flags)
	}
	if strings.Contains(commands, "log-append") {
		t.Errorf("completion offers a hidden test command:\n%s", commands)
	}
	for shell, marker := range map[string]string{
		"bash": "complete -o bashdefault -o default -F _storhfs_complete storhfs",
		"zsh":  "compdef _storhfs storhfs",
		"fish": "complete -c storhfs",
	} {
		if got := mustRun(t, "completion", shell); !strings.Contains(got, marker) || !strings.Contains(got, "generate-bash-completion") && shell != "fish" {
			t.Errorf("completion %s lacks %q:\n%s", shell, marker, got)
		}
	}
	if r := runCLI(t, "", "completion", "tcsh"); r.code != exitUsage || !strings.Contains(r.stderr, "bash, zsh or fish") {
		t.Errorf("completion tcsh: exit %d stderr %q", r.code, r.stderr)
	}
}

func TestManPageListsEveryCommand(t *testing.T) {
	page := mustRun(t, "man")
	if !strings.HasPrefix(page, ".nh\n.TH storhfs 1") {
		t.Fatalf("not a section 1 man page:\n%.200s", page)
	}
	for _, c := range newApp().Commands {
		if !c.Hidden && !strings.Contains(page, "\n.SH "+c.Name+"\n") {
			t.Errorf("man page lacks command %s", c.Name)
		}
	}
}
