package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/floe-stream/floe/sdk"
	"github.com/spf13/cobra"
)

func newCommand(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use: "new NAME [--lang LANG] [--dir DIR]", Short: "write a ready-to-build operator project", Args: positional("NAME"),
		Long: `Writes a ready-to-build operator project NAME (a word count with keyed state,
its job spec and a build script) into DIR (default ./NAME), with the SDK for
LANG copied into DIR/floe-sdk, and prints the commands that build and run it.`,
	}
	lang := cmd.Flags().String("lang", "go", "the operator's language: "+strings.Join(sdk.Languages(), ", "))
	dir := cmd.Flags().String("dir", "", "where to write the project (default ./NAME)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if !slices.Contains(sdk.Languages(), *lang) {
			return fmt.Errorf("--lang %q: want one of %s", *lang, strings.Join(sdk.Languages(), ", "))
		}
		name := args[0]
		if *dir == "" {
			*dir = name
		}
		next, err := sdk.New(*lang, name, filepath.Clean(*dir))
		if err != nil {
			fmt.Fprintf(stderr, "floe new: %v\n", err)
			return exitCode(1)
		}
		fmt.Fprintf(stdout, "wrote %s project %s in %s; build and run it with:\n  %s\n", *lang, name, *dir, next)
		return nil
	}
	return cmd
}
