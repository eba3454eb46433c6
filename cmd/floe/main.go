// Command floe is Floe's one binary. It runs a job on an embedded
// mini-cluster (floe run); prints a job's graph and stages (floe plan);
// starts a cluster's scheduler (floe scheduler) and
// its task managers (floe taskmanager); submits, lists, rescales, savepoints
// and cancels jobs on a cluster through the scheduler's REST API (floe job);
// reads a running job's queryable state (floe state); shows the schedulers'
// group (floe cluster); and writes a new operator project for one of the
// SDKs (floe new).
//
// The command line is a tree of spf13/cobra commands (cli.go) whose flags
// are spf13/pflag's: --long flags with -x shorthands, anywhere on the line.
// Each command parses its flags and calls the embeddable constructors of the
// packages below it. Exit codes: 0 success, 1 failure, 2 a bad command line
// (unknown command or flag, missing or extra argument, bad flag value), 130
// interrupted.
package main

import "os"

func main() {
	os.Exit(floe(os.Args[1:], os.Stdout, os.Stderr))
}
