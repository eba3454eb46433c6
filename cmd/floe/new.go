package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/floe-stream/floe/sdk"
)

const newUsage = `Usage: floe new --lang LANG NAME [--dir DIR]

Writes a ready-to-build operator project NAME (a word count with keyed state,
its job spec and a build script) into DIR (default ./NAME), with the SDK for
LANG copied into DIR/floe-sdk, and prints the commands that build and run it.

Flags:
`

func newCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("new", flag.ContinueOnError)
	fs.SetOutput(stderr)
	lang := fs.String("lang", "go", "the operator's language: "+strings.Join(sdk.Languages(), ", "))
	dir := fs.String("dir", "", "where to write the project (default ./NAME)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), newUsage)
		fs.PrintDefaults()
	}
	// Flags may come after NAME.
	names, code, ok := parseInterspersed(fs, args, stdout)
	if !ok {
		return code
	}
	if len(names) != 1 {
		fmt.Fprintf(stderr, "floe new: want one project NAME, got %d\n\n", len(names))
		fs.Usage()
		return 2
	}
	name := names[0]
	if *dir == "" {
		*dir = name
	}
	next, err := sdk.New(*lang, name, filepath.Clean(*dir))
	if err != nil {
		fmt.Fprintf(stderr, "floe new: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s project %s in %s; build and run it with:\n  %s\n", *lang, name, *dir, next)
	return 0
}

// parseInterspersed parses args with fs, letting flags come before, between
// and after the positional arguments, which it returns. On --help it prints
// the usage to stdout and returns code 0; on a bad flag (fs has printed
// why) code 2; ok is false in both cases.
func parseInterspersed(fs *flag.FlagSet, args []string, stdout io.Writer) (positional []string, code int, ok bool) {
	for {
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				fs.SetOutput(stdout)
				fs.Usage()
				return nil, 0, false
			}
			return nil, 2, false
		}
		if fs.NArg() == 0 {
			return positional, 0, true
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
