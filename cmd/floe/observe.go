package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client"
	"github.com/spf13/cobra"
)

// This file holds the commands that watch a job: floe job exceptions,
// floe job logs [-f] and floe job status --watch.

func jobExceptionsCmd(stdout, stderr io.Writer) *cobra.Command {
	j := newJobCLI("exceptions", "ID [flags]",
		"Lists a job's failures, newest first: when, the attempt, the subtask and\n"+
			"task manager, where in an operator's module it arose (operator, module,\n"+
			"function, and the key and value of the record being processed) when known,\n"+
			"and the message. The scheduler keeps the last 100. -o json prints them as the\n"+
			"REST API returns them.\n", stdout, stderr)
	output := j.outputFlag()
	return j.command(func(pos []string) int {
		if err := checkOutput(*output); err != nil {
			return j.usageError(err)
		}
		return j.run(func(ctx context.Context, c *client.Client) error {
			x, err := c.Exceptions(ctx, pos[0])
			if err != nil {
				return err
			}
			if *output == "json" {
				return printJSON(stdout, x)
			}
			printExceptions(stdout, x)
			return nil
		})
	}, "ID")
}

// printExceptions writes a job's failures as floe job exceptions shows
// them: a line saying when and where, one saying what it ran, if known,
// and the message, indented.
func printExceptions(w io.Writer, x api.Exceptions) {
	if len(x.Exceptions) == 0 && x.Dropped == 0 {
		fmt.Fprintln(w, "no failures")
		return
	}
	for i, e := range x.Exceptions {
		if i > 0 {
			fmt.Fprintln(w)
		}
		where := "the whole attempt"
		if e.Stage != nil && e.Subtask != nil {
			where = fmt.Sprintf("vertex %d %s, subtask %d", *e.Stage, e.Vertex, *e.Subtask)
		}
		fmt.Fprintf(w, "%s  attempt %d  %s  on %s\n", formatTime(e.Time), e.Attempt, where, orDash(e.TaskManager))
		var in []string
		for _, f := range [][2]string{{"operator", e.Operator}, {"module", e.Module}, {"function", e.Function}, {"key", e.Key}, {"record", e.Record}} {
			if f[1] != "" {
				in = append(in, f[0]+" "+f[1])
			}
		}
		if len(in) > 0 {
			fmt.Fprintf(w, "  %s\n", strings.Join(in, ", "))
		}
		fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(e.Message, "\n", "\n  "))
	}
	if x.Dropped > 0 {
		fmt.Fprintf(w, "\n(%d older failures are no longer kept)\n", x.Dropped)
	}
}

func jobLogsCmd(stdout, stderr io.Writer) *cobra.Command {
	j := newJobCLI("logs", "ID [-f] [--vertex V [--subtask N]] [--since S] [flags]",
		"Prints the recent lines a job's guest code logged, oldest first: the time,\n"+
			"level, vertex and subtask, task manager, operator and message. Each task\n"+
			"manager keeps the last 1000 lines (256 KiB) of each subtask it ran; the\n"+
			"lines of a task manager that is gone are gone with it. With -f it goes on\n"+
			"printing new lines until the job ends or Ctrl-C. -o json prints one JSON\n"+
			"object a line.\n", stdout, stderr)
	output := j.outputFlag()
	follow := j.fs.BoolP("follow", "f", false, "follow: print new lines as they come, until the job ends")
	vertex := j.fs.String("vertex", "", "only the lines of this vertex, by name or by stage index from 0")
	subtask := j.fs.Int("subtask", -1, "with --vertex, only the lines of this subtask, from 0")
	since := j.fs.String("since", "", "only the lines after this seq or RFC 3339 time")
	poll := j.fs.Duration("poll", client.DefaultPoll, "with -f, how often to ask for new lines")
	return j.command(func(pos []string) int {
		q := api.LogQuery{Vertex: *vertex, Subtask: *subtask}
		var err error
		if err = checkOutput(*output); err == nil {
			if q.Since, err = api.ParseSince(*since); err == nil {
				q, err = api.CheckLogQuery(q)
			}
		}
		if err == nil && *poll <= 0 {
			err = fmt.Errorf("--poll %v: want a duration > 0", *poll)
		}
		if err != nil {
			return j.usageError(err)
		}
		return j.run(func(ctx context.Context, c *client.Client) error {
			return printLogs(ctx, c, pos[0], q, *follow, *poll, *output == "json", stdout, stderr)
		})
	}, "ID")
}

// printLogs prints a job's lines that q selects, asking again from the
// last line while there are more; with follow it goes on every poll until
// the job has ended, and then once more for the lines it logged last.
func printLogs(ctx context.Context, c *client.Client, id string, q api.LogQuery, follow bool, poll time.Duration, asJSON bool, stdout, stderr io.Writer) error {
	unreachable := map[string]bool{}
	ended := false
	for {
		logs, err := c.Logs(ctx, id, q)
		if err != nil {
			return err
		}
		for _, l := range logs.Lines {
			if err := printLogLine(stdout, l, asJSON); err != nil {
				return err
			}
		}
		for _, tm := range logs.Unreachable {
			if !unreachable[tm] {
				unreachable[tm] = true
				fmt.Fprintf(stderr, "floe job logs: task manager %s did not answer; its lines are missing\n", tm)
			}
		}
		q.Since = logs.Next
		switch {
		case logs.More:
			continue
		case !follow || ended:
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(poll):
		}
		job, err := c.Job(ctx, id)
		if err != nil {
			return err
		}
		ended = api.Terminal(job.State)
	}
}

func printLogLine(w io.Writer, l api.LogLine, asJSON bool) error {
	if asJSON {
		return printJSONLine(w, l)
	}
	op := ""
	if l.Operator != "" {
		op = " " + l.Operator + ":"
	}
	_, err := fmt.Fprintf(w, "%s %-5s %s[%d] %s%s %s\n", l.Time.Format("2006-01-02T15:04:05.000Z07:00"), l.Level, l.Vertex, l.Subtask,
		l.TaskManager, op, l.Message)
	return err
}

// watchStatus prints a job's status every interval until it ends: on a
// terminal in place, clearing the screen each time, and otherwise one
// status after another, each under a line with the time.
func watchStatus(ctx context.Context, c *client.Client, id string, interval time.Duration, asJSON bool, w io.Writer) error {
	tty := isTerminal(w)
	for {
		job, err := c.Job(ctx, id)
		if err != nil {
			return err
		}
		switch {
		case tty:
			fmt.Fprint(w, "\033[H\033[2J")
			fmt.Fprintf(w, "Every %v: floe job status %s\n\n", interval, id)
		case !asJSON: // JSON goes out as a stream of objects
			fmt.Fprintf(w, "--- %s\n", formatTime(time.Now()))
		}
		if asJSON {
			err = printJSON(w, job)
		} else {
			err = printStatus(w, job)
		}
		if err != nil || api.Terminal(job.State) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(interval):
		}
	}
}

func printJSONLine(w io.Writer, v any) error { return json.NewEncoder(w).Encode(v) }

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
