// Command floe is Floe's one binary. It runs a job on an embedded
// mini-cluster (floe run); prints a job's graph and stages (floe plan);
// starts a cluster's scheduler (floe scheduler) and
// its task managers (floe taskmanager); submits, lists, rescales, savepoints
// and cancels jobs on a cluster through the scheduler's REST API (floe job);
// reads a running job's queryable state (floe state); shows the schedulers'
// group (floe cluster); and writes a new
// operator project for one of the SDKs (floe new). Each command parses its
// flags and calls the embeddable constructors of the packages below it.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
)

const usage = `floe — stream processing with WebAssembly operators

Usage:
  floe run JOB.yaml [--set key=value]... [--parallelism N] [flags]
                    run a job on an embedded mini-cluster until it ends
  floe plan JOB.yaml [--set key=value]... [--parallelism N]
                    check a job spec and print its graph and stages
  floe scheduler [flags]
                    run the job manager: REST API and task-manager endpoint
  floe taskmanager --scheduler ADDR[,ADDR...] --slots N [flags]
                    run a task manager that runs the scheduler's tasks
  floe job submit|list|status|cancel|wait|checkpoints|rescale|savepoint|stop ...
                    manage the jobs of a cluster through its scheduler
  floe state get --job ID --state NAME KEY... [-o json|text]
                    read keys of a job's queryable state
  floe cluster status [-o json|text]
                    show the schedulers: members, leader, applied log index
  floe new --lang go|rust|c|as NAME
                    write a ready-to-build operator project
  floe certs init DIR [--hosts H1,H2]
                    write a development CA and certificates for each role
  floe token create NAME --role viewer|operator|admin --file FILE
                    make a REST API user's bearer token
  floe version      print the version
  floe help [COMMAND]

Run 'floe help COMMAND' for the flags of a command.
`

func main() {
	os.Exit(floe(os.Args[1:], os.Stdout, os.Stderr))
}

// floe runs the command line args and returns the exit code.
func floe(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "run":
		return runCmd(args[1:], stdout, stderr)
	case "plan":
		return planCmd(args[1:], stdout, stderr)
	case "job":
		return jobCmd(args[1:], stdout, stderr)
	case "state":
		return stateCmd(args[1:], stdout, stderr)
	case "cluster":
		return clusterCmd(args[1:], stdout, stderr)
	case "certs":
		return certsCmd(args[1:], stdout, stderr)
	case "token":
		return tokenCmd(args[1:], stdout, stderr)
	case "new":
		return newCmd(args[1:], stdout, stderr)
	case "scheduler":
		return schedulerCmd(args[1:], stdout, stderr)
	case "taskmanager":
		return taskManagerCmd(args[1:], stdout, stderr)
	case "version", "--version":
		info, ok := debug.ReadBuildInfo()
		printVersion(stdout, info, ok)
		return 0
	case "help", "-h", "--help":
		if len(args) > 1 && args[1] == "run" {
			return runCmd([]string{"--help"}, stdout, stderr)
		}
		if len(args) > 1 && args[1] == "plan" {
			return planCmd([]string{"--help"}, stdout, stderr)
		}
		if len(args) > 1 && args[1] == "new" {
			return newCmd([]string{"--help"}, stdout, stderr)
		}
		if len(args) > 1 && args[1] == "scheduler" {
			return schedulerCmd([]string{"--help"}, stdout, stderr)
		}
		if len(args) > 1 && args[1] == "taskmanager" {
			return taskManagerCmd([]string{"--help"}, stdout, stderr)
		}
		if len(args) > 1 && args[1] == "job" {
			return jobCmd(append([]string{"help"}, args[2:]...), stdout, stderr)
		}
		if len(args) > 1 && args[1] == "state" {
			return stateCmd(append([]string{"help"}, args[2:]...), stdout, stderr)
		}
		if len(args) > 1 && args[1] == "token" {
			return tokenCmd([]string{"--help"}, stdout, stderr)
		}
		if len(args) > 1 && args[1] == "certs" {
			return certsCmd([]string{"--help"}, stdout, stderr)
		}
		if len(args) > 1 && args[1] == "cluster" {
			return clusterCmd(append([]string{"help"}, args[2:]...), stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "floe: unknown command %q\n\n%s", args[0], usage)
	return 2
}
