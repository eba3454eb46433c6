package main

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

const rootLong = `floe — stream processing with WebAssembly operators.

Runs a job on an embedded mini-cluster (floe run), or a cluster of a
scheduler and task managers, and manages that cluster's jobs (floe job).`

// floe runs the command line args and returns the exit code.
func floe(args []string, stdout, stderr io.Writer) int {
	root := rootCommand(stdout, stderr)
	root.SetArgs(normalizeArgs(args))
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteC()
	var code exitCode
	switch {
	case err == nil:
		return 0
	case errors.As(err, &code):
		return int(code)
	}
	reportUsageError(stderr, cmd, err)
	return 2
}

// rootCommand builds the command tree; its commands write to stdout and
// stderr.
func rootCommand(stdout, stderr io.Writer) *cobra.Command {
	root := groupCommand("floe", "stream processing with WebAssembly operators", rootLong)
	// NB: floe itself refuses an unknown flag; only its groups skip them.
	root.FParseErrWhitelist = cobra.FParseErrWhitelist{}
	root.SilenceErrors = true
	root.SilenceUsage = true
	root.AddCommand(
		runCommand(stdout, stderr),
		planCommand(stdout, stderr),
		sqlCommand(stdout, stderr),
		schedulerCommand(stdout, stderr),
		taskManagerCommand(stdout, stderr),
		jobCommand(stdout, stderr),
		moduleCommand(stdout, stderr),
		stateCommand(stdout, stderr),
		clusterCommand(stdout, stderr),
		newCommand(stdout, stderr),
		certsCommand(stdout, stderr),
		tokenCommand(stdout, stderr),
		docsCommand(stdout, stderr),
		&cobra.Command{
			Use: "version", Short: "print the version, commit, Go toolchain and ABI", Args: positional(),
			Run: func(*cobra.Command, []string) {
				info, ok := debug.ReadBuildInfo()
				printVersion(stdout, info, ok)
			},
		},
	)
	return root
}

// groupCommands are the commands that only hold subcommands, for
// normalizeArgs.
var groupCommands = []string{"job", "module", "state", "cluster", "certs", "token"}

// normalizeArgs keeps older spellings working: "floe --version", and
// "floe GROUP help [COMMAND]" for "floe help GROUP [COMMAND]". For floe
// run, it joins "--ui HOST:PORT" into "--ui=HOST:PORT" (uiArgs).
func normalizeArgs(args []string) []string {
	switch {
	case len(args) == 0:
		return args
	case args[0] == "--version":
		return append([]string{"version"}, args[1:]...)
	case len(args) > 1 && args[1] == "help" && slices.Contains(groupCommands, args[0]):
		return append([]string{"help", args[0]}, args[2:]...)
	case args[0] == "run":
		return uiArgs(args)
	}
	return args
}

// groupCommand makes a command that only holds subcommands. Alone it
// prints its help on stderr and exits 2; with an unknown subcommand it
// fails with a suggestion. It ignores unknown flags, so that a mistyped
// subcommand with its flags (floe job sumbit --server URL) is reported as
// the unknown command it is.
func groupCommand(name, short, long string) *cobra.Command {
	return &cobra.Command{
		Use: name, Short: short, Long: long,
		Args: subcommandArgs, SuggestionsMinimumDistance: 2,
		FParseErrWhitelist: cobra.FParseErrWhitelist{UnknownFlags: true},
		RunE: func(cmd *cobra.Command, args []string) error {
			cmd.SetOut(cmd.ErrOrStderr())
			cmd.Help()
			return exitCode(2)
		},
	}
}

// unknownCommandError is a usage error that names the command itself.
type unknownCommandError struct{ msg string }

func (e unknownCommandError) Error() string { return e.msg }

// subcommandArgs refuses any argument of a group command: it names an
// unknown subcommand. The error suggests the nearest.
func subcommandArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "\nDid you mean this? " + strings.Join(s, ", ")
	}
	return unknownCommandError{msg}
}

// positional checks a command's positional arguments: exactly one for each
// of names.
func positional(names ...string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) < len(names):
			return fmt.Errorf("missing %s", strings.Join(names[len(args):], " "))
		case len(args) > len(names):
			return fmt.Errorf("unexpected arguments %q", args[len(names):])
		}
		return nil
	}
}

// exitCode is the error a command returns to exit with a code other than 0
// once it has said why on stderr.
type exitCode int

func (c exitCode) Error() string { return fmt.Sprintf("exit code %d", int(c)) }

// codeError turns a command's exit code into the error its RunE returns.
func codeError(code int) error {
	if code == 0 {
		return nil
	}
	return exitCode(code)
}

// reportUsageError writes a bad command line's error on one line, then a
// hint where to read the usage.
func reportUsageError(w io.Writer, cmd *cobra.Command, err error) {
	if _, ok := err.(unknownCommandError); ok {
		fmt.Fprintf(w, "floe: %v\n", err)
	} else {
		fmt.Fprintf(w, "%s: %v\n", cmd.CommandPath(), err)
	}
	usageHint(w, cmd)
}

// usageHint says where to read the usage of cmd.
func usageHint(w io.Writer, cmd *cobra.Command) {
	fmt.Fprintf(w, "Run '%s --help' for usage.\n", cmd.CommandPath())
}
