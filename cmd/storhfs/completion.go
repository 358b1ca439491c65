package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// Shell completion asks the binary itself for candidates: urfave/cli's
// hidden --generate-bash-completion flag lists a command's subcommands and
// flags, so the scripts below never drift from the command definitions.
// The bash and zsh scripts are urfave/cli's own (autocomplete/ in its
// module) with the program name filled in; fish's is generated.

const bashCompletion = `# storhfs bash completion: source it, or install it as
# /usr/share/bash-completion/completions/storhfs
_storhfs_complete() {
  local cur words
  COMPREPLY=()
  cur="${COMP_WORDS[COMP_CWORD]}"
  words=("${COMP_WORDS[@]:0:$COMP_CWORD}")
  if [[ "$cur" == "-"* ]]; then
    opts=$("${words[@]}" "$cur" --generate-bash-completion 2>/dev/null)
  else
    opts=$("${words[@]}" --generate-bash-completion 2>/dev/null)
  fi
  COMPREPLY=($(compgen -W "${opts}" -- "${cur}"))
  return 0
}
complete -o bashdefault -o default -F _storhfs_complete storhfs
`

const zshCompletion = `#compdef storhfs
# storhfs zsh completion: install as _storhfs in a directory of $fpath
_storhfs() {
  local -a opts
  local cur
  cur=${words[-1]}
  if [[ "$cur" == "-"* ]]; then
    opts=("${(@f)$(${words[@]:0:#words[@]-1} ${cur} --generate-bash-completion)}")
  else
    opts=("${(@f)$(${words[@]:0:#words[@]-1} --generate-bash-completion)}")
  fi
  if [[ "${opts[1]}" != "" ]]; then
    _describe 'values' opts
  else
    _files
  fi
}
compdef _storhfs storhfs
`

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print the shell completion script for bash, zsh or fish",
		ArgsUsage: "bash|zsh|fish",
		Description: `Example:
   $ source <(storhfs completion bash)
   $ storhfs completion zsh > "${fpath[1]}/_storhfs"
   $ storhfs completion fish > ~/.config/fish/completions/storhfs.fish`,
		OnUsageError: onUsageError,
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageError(c, "need one shell: bash, zsh or fish")
			}
			switch shell := c.Args().First(); shell {
			case "bash":
				_, err := fmt.Fprint(c.App.Writer, bashCompletion)
				return err
			case "zsh":
				_, err := fmt.Fprint(c.App.Writer, zshCompletion)
				return err
			case "fish":
				script, err := c.App.ToFishCompletion()
				if err != nil {
					return err
				}
				_, err = fmt.Fprint(c.App.Writer, script)
				return err
			default:
				return usageError(c, "unknown shell %q: bash, zsh or fish", shell)
			}
		},
	}
}

func manCommand() *cli.Command {
	return &cli.Command{
		Name:  "man",
		Usage: "print the storhfs(1) manual page, made from the commands' own help",
		Description: `Example:
   $ storhfs man > /usr/local/share/man/man1/storhfs.1
   $ storhfs man | man -l -`,
		OnUsageError: onUsageError,
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usageError(c, "man takes no arguments")
			}
			page, err := c.App.ToManWithSection(1)
			if err != nil {
				return err
			}
			_, err = fmt.Fprint(c.App.Writer, strings.TrimLeft(page, "\n"))
			return err
		},
	}
}
