package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client"
	"github.com/spf13/cobra"
)

func jobMetricsCmd(stdout, stderr io.Writer) *cobra.Command {
	j := newJobCLI("metrics", "ID [flags]",
		"Shows a job's figures as its task managers last reported them (every second\n"+
			"by default): each vertex (a stage of chained operators) and, under it, each\n"+
			"subtask, with records in and out, their rates, the shares of time busy,\n"+
			"back-pressured and idle, the event-time lag and a file source's progress;\n"+
			"then the job's checkpoints. -o json prints them as the REST API returns them.\n", stdout, stderr)
	output := j.outputFlag()
	return j.command(func(pos []string) int {
		if err := checkOutput(*output); err != nil {
			return j.usageError(err)
		}
		return j.run(func(ctx context.Context, c *client.Client) error {
			m, err := c.JobMetrics(ctx, pos[0])
			if err != nil {
				return err
			}
			if *output == "json" {
				return printJSON(stdout, m)
			}
			return printJobMetrics(stdout, m)
		})
	}, "ID")
}

// printJobMetrics writes a job's metrics as floe job metrics shows them.
// What a task has not reported is a dash.
func printJobMetrics(w io.Writer, m api.JobMetrics) error {
	fmt.Fprintf(w, "Job %s (%s): %s\n\n", m.Name, m.ID, m.State)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VERTEX\tPARALLELISM\tTASK MANAGER\tRECORDS IN\tRECORDS OUT\tIN/S\tOUT/S\tBUSY\tBACK-PRESSURED\tIDLE\tLAG\tREAD")
	for _, v := range m.Vertices {
		fmt.Fprintf(tw, "%d %s\t%d\t\t%s\n", v.Stage, v.Name, v.Parallelism, figures(v.TaskFigures))
		for _, s := range v.Subtasks {
			fmt.Fprintf(tw, "  subtask %d\t\t%s\t%s\n", s.Subtask, orDash(s.TaskManager), figures(s.TaskFigures))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if c := m.Checkpoints; c != nil {
		fmt.Fprintf(w, "\nCheckpoints: %d completed, %d failed", c.Completed, c.Failed)
		if l := c.Last; l != nil {
			fmt.Fprintf(w, "; last %d took %s, %s (%s incremental)", l.ID, time.Duration(l.DurationMillis)*time.Millisecond,
				formatBytes(l.FullBytes), formatBytes(l.IncrementalBytes))
		}
		fmt.Fprintln(w)
	}
	return nil
}

// figures writes the columns from RECORDS IN on.
func figures(f api.TaskFigures) string {
	lag, read := "-", "-"
	if f.EventTimeLagMillis != nil {
		lag = (time.Duration(*f.EventTimeLagMillis) * time.Millisecond).String()
	}
	if p := f.Progress; p != nil {
		read = formatBytes(p.BytesRead)
		if p.BytesTotal > 0 {
			read = fmt.Sprintf("%.1f%% of %s", 100*float64(p.BytesRead)/float64(p.BytesTotal), formatBytes(p.BytesTotal))
		}
	}
	return fmt.Sprintf("%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s", f.RecordsIn, f.RecordsOut, formatCount(f.RecordsInPerSecond),
		formatCount(f.RecordsOutPerSecond), percent(f.Busy), percent(f.BackPressured), percent(f.Idle), lag, read)
}
