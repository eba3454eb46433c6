package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client"
)

// dirHelp is the help of --dir of savepoint and stop.
const dirHelp = "`URL` (file:// or s3://) under which the savepoint's directory is made " +
	"(default: savepoints/ in the job's checkpoint storage)"

// detachHelp is the help of --detach of savepoint and stop.
const detachHelp = "print the savepoint's trigger id at once instead of waiting; " +
	"floe job savepoint-status ID TRIGGER tells how it went"

// pollInterval is how often savepoint and stop poll a savepoint trigger.
const pollInterval = 500 * time.Millisecond

func jobSavepointCmd(stdout, stderr io.Writer) *cobra.Command {
	j := newJobCLI("savepoint", "ID [--dir URL] [--detach] [flags]",
		"Takes a savepoint of a running job that takes checkpoints: a self-contained\n"+
			"copy of its state, which a job submitted with --from-savepoint starts from, at\n"+
			"any parallelism. The job keeps running. Waits until the savepoint is complete,\n"+
			"which can take minutes for a job with much state, polling the scheduler, then\n"+
			"prints its path, and nothing else, on stdout. With --detach, prints the\n"+
			"savepoint's trigger id at once instead, for floe job savepoint-status.\n"+
			"docs/savepoints.md explains savepoints.\n", stdout, stderr)
	dir := j.fs.String("dir", "", dirHelp)
	detach := j.fs.Bool("detach", false, detachHelp)
	return j.command(func(pos []string) int {
		return j.run(func(ctx context.Context, c *client.Client) error {
			t, err := c.Savepoint(ctx, pos[0], *dir)
			if err != nil {
				return err
			}
			return finishSavepoint(ctx, c, stdout, pos[0], t, *detach)
		})
	}, "ID")
}

func jobStopCmd(stdout, stderr io.Writer) *cobra.Command {
	j := newJobCLI("stop", "ID --savepoint [--dir URL] [--detach] [flags]",
		"With --savepoint, takes a savepoint of a running job as floe job savepoint\n"+
			"does, and the job stops, ending FINISHED, once it is complete; waits for it,\n"+
			"then prints the savepoint's path, and nothing else, on stdout (with --detach,\n"+
			"its trigger id at once). Without --savepoint, cancels the job and prints its\n"+
			"state afterwards, as floe job cancel does.\n", stdout, stderr)
	savepoint := j.fs.Bool("savepoint", false, "take a savepoint before the job stops")
	dir := j.fs.String("dir", "", "with --savepoint, "+dirHelp)
	detach := j.fs.Bool("detach", false, "with --savepoint, "+detachHelp)
	return j.command(func(pos []string) int {
		switch {
		case *dir != "" && !*savepoint:
			return j.usageError(errors.New("--dir needs --savepoint"))
		case *detach && !*savepoint:
			return j.usageError(errors.New("--detach needs --savepoint"))
		}
		return j.run(func(ctx context.Context, c *client.Client) error {
			if !*savepoint {
				return cancelJob(ctx, c, pos[0], stdout)
			}
			t, err := c.Stop(ctx, pos[0], *dir)
			if err != nil {
				return err
			}
			return finishSavepoint(ctx, c, stdout, pos[0], t, *detach)
		})
	}, "ID")
}

// finishSavepoint prints a savepoint's trigger id when detached; otherwise
// it waits for the savepoint and prints its path.
func finishSavepoint(ctx context.Context, c *client.Client, w io.Writer, id string, t api.SavepointTrigger, detach bool) error {
	if detach {
		fmt.Fprintln(w, t.Trigger)
		return nil
	}
	t, err := c.WaitSavepoint(ctx, id, t.Trigger, pollInterval)
	if err == nil {
		fmt.Fprintln(w, t.Path)
	}
	return err
}

func jobSavepointStatusCmd(stdout, stderr io.Writer) *cobra.Command {
	j := newJobCLI("savepoint-status", "ID TRIGGER [flags]",
		"Shows a savepoint trigger of a job, as floe job savepoint --detach printed it:\n"+
			"its status (IN_PROGRESS, COMPLETED or FAILED), the checkpoint it is taken as,\n"+
			"and its path once COMPLETED or why it FAILED. A job keeps its last 100\n"+
			"triggers. -o json prints it as the REST API returns it.\n", stdout, stderr)
	output := j.outputFlag()
	return j.command(func(pos []string) int {
		if err := checkOutput(*output); err != nil {
			return j.usageError(err)
		}
		return j.run(func(ctx context.Context, c *client.Client) error {
			t, err := c.SavepointStatus(ctx, pos[0], pos[1])
			if err != nil {
				return err
			}
			if *output == "json" {
				return printJSON(stdout, t)
			}
			printTrigger(stdout, t)
			return nil
		})
	}, "ID", "TRIGGER")
}

// printTrigger writes a savepoint trigger as floe job savepoint-status
// shows it.
func printTrigger(w io.Writer, t api.SavepointTrigger) {
	fmt.Fprintf(w, "trigger:     %s\nstatus:      %s\ncheckpoint:  %d\n", t.Trigger, t.Status, t.ID)
	if t.Stop {
		fmt.Fprintln(w, "stops job:   yes")
	}
	if t.Path != "" {
		fmt.Fprintf(w, "path:        %s\n", t.Path)
	}
	if t.Failure != "" {
		fmt.Fprintf(w, "failure:     %s\n", oneLine(t.Failure))
	}
}
