package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func jobAutoscalerCmd(stdout, stderr io.Writer) *cobra.Command {
	j := newJobCLI("autoscaler", "ID [--enable | --disable] [--min-parallelism N] [--max-parallelism N] [--target-utilization F] ... [flags]",
		"Shows a job's autoscaling policy and the autoscaler's decisions, newest first,\n"+
			"each with the figures it was computed from: per vertex the parallelism before,\n"+
			"computed and chosen, the records per second required and observed, the busiest\n"+
			"subtask's true rate (records per busy second), busy share and hot share, and\n"+
			"the notes of the bounds that applied (skew, factors, slots). With any policy\n"+
			"flag it first changes the policy: the flags given replace those settings, the\n"+
			"others keep theirs. The job needs checkpoints to be autoscaled.\n"+
			"docs/autoscaling.md explains the decisions. -o json prints the REST API's answer.\n", stdout, stderr)
	output := j.outputFlag()
	enable := j.fs.Bool("enable", false, "turn the autoscaler on")
	disable := j.fs.Bool("disable", false, "turn the autoscaler off")
	minPar := j.fs.Int("min-parallelism", 0, "least parallelism of every vertex")
	maxPar := j.fs.Int("max-parallelism", 0, "most parallelism of every vertex (at most the job's key groups)")
	target := j.fs.Float64("target-utilization", 0, "busy share the busiest subtask should run at, in (0, 1]")
	stab := j.fs.Duration("stabilization", 0, "metrics every subtask must cover since the last rescale before a decision")
	cooldown := j.fs.Duration("cooldown", 0, "no decision this long after a rescale")
	up := j.fs.Float64("max-scale-up", 0, "one rescale goes at most to floor(p × F)")
	down := j.fs.Float64("max-scale-down", 0, "one rescale goes at least to ceil(p / F)")
	catchUp := j.fs.Duration("catch-up", 0, "time in which a source's backlog should be worked off (0 ignores backlogs)")
	interval := j.fs.Duration("interval", 0, "time between decisions")
	maxLag := j.fs.Duration("max-lag", 0, "latency policy: keep the job's event-time lag under this (0 turns it off)")
	maxBacklog := j.fs.Int64("max-backlog", 0, "latency policy: keep the records waiting at the sources (Kafka lag) under this (0 turns it off)")
	return j.command(func(pos []string) int {
		if err := checkOutput(*output); err != nil {
			return j.usageError(err)
		}
		if *enable && *disable {
			return j.usageError(errors.New("--enable and --disable exclude each other"))
		}
		change := func(c *api.AutoscalerConfig) {
			set := func(name string, apply func()) {
				if j.isSet(name) {
					apply()
				}
			}
			set("enable", func() { c.Enabled = true })
			set("disable", func() { c.Enabled = false })
			set("min-parallelism", func() { c.MinParallelism = *minPar })
			set("max-parallelism", func() { c.MaxParallelism = *maxPar })
			set("target-utilization", func() { c.TargetUtilization = *target })
			set("stabilization", func() { c.Stabilization = stab.String() })
			set("cooldown", func() { c.Cooldown = cooldown.String() })
			set("max-scale-up", func() { c.MaxScaleUpFactor = *up })
			set("max-scale-down", func() { c.MaxScaleDownFactor = *down })
			set("catch-up", func() { c.CatchUp = catchUp.String() })
			set("interval", func() { c.Interval = interval.String() })
			set("max-backlog", func() { c.MaxBacklog = *maxBacklog })
			set("max-lag", func() {
				c.MaxLag = ""
				if *maxLag > 0 {
					c.MaxLag = maxLag.String()
				}
			})
		}
		changing := false
		j.fs.Visit(func(f *pflag.Flag) { changing = changing || policyFlags[f.Name] })
		return j.run(func(ctx context.Context, c *client.Client) error {
			st, err := c.Autoscaler(ctx, pos[0])
			if err == nil && changing {
				cfg := st.Config
				change(&cfg)
				st, err = c.SetAutoscaler(ctx, pos[0], cfg)
			}
			if err != nil {
				return err
			}
			if *output == "json" {
				return printJSON(stdout, st)
			}
			return printAutoscaler(stdout, st)
		})
	}, "ID")
}

// policyFlags are the flags of floe job autoscaler that change the policy.
var policyFlags = map[string]bool{"enable": true, "disable": true, "min-parallelism": true, "max-parallelism": true,
	"target-utilization": true, "stabilization": true, "cooldown": true, "max-scale-up": true, "max-scale-down": true,
	"catch-up": true, "interval": true, "max-lag": true, "max-backlog": true}

// printAutoscaler writes a job's autoscaler as floe job autoscaler shows it.
func printAutoscaler(w io.Writer, st api.AutoscalerStatus) error {
	c := st.Config
	state := "disabled"
	if c.Enabled {
		state = "enabled"
	}
	fmt.Fprintf(w, "Autoscaler of %s: %s; target utilization %s, stabilization %s, cooldown %s, every %s",
		st.ID, state, percent(c.TargetUtilization), c.Stabilization, c.Cooldown, c.Interval)
	if c.MinParallelism > 0 || c.MaxParallelism > 0 {
		fmt.Fprintf(w, ", parallelism %s..%s", intOr(c.MinParallelism, "1"), intOr(c.MaxParallelism, "key groups"))
	}
	if c.MaxScaleUpFactor > 0 {
		fmt.Fprintf(w, ", up at most ×%g", c.MaxScaleUpFactor)
	}
	if c.MaxScaleDownFactor > 0 {
		fmt.Fprintf(w, ", down at most ÷%g", c.MaxScaleDownFactor)
	}
	if c.CatchUp != "" {
		fmt.Fprintf(w, ", catch up backlogs in %s", c.CatchUp)
	}
	if c.MaxLag != "" {
		fmt.Fprintf(w, ", event-time lag under %s", c.MaxLag)
	}
	if c.MaxBacklog > 0 {
		fmt.Fprintf(w, ", backlog under %d records", c.MaxBacklog)
	}
	for _, win := range c.Schedule {
		fmt.Fprintf(w, ", %s-%s UTC parallelism %s..%s", win.From, win.To, intOr(win.MinParallelism, "-"), intOr(win.MaxParallelism, "-"))
	}
	fmt.Fprintf(w, "\nRescales: %d", st.Rescales)
	if st.LastRescale != nil {
		fmt.Fprintf(w, ", the last at %s", st.LastRescale.UTC().Format(time.RFC3339))
	}
	if st.SlotsMissing > 0 {
		fmt.Fprintf(w, "; %d slots missing", st.SlotsMissing)
	}
	fmt.Fprintln(w)
	for _, d := range st.Decisions {
		if err := printDecision(w, d); err != nil {
			return err
		}
	}
	return nil
}

// printDecision writes one decision and its vertices.
func printDecision(w io.Writer, d api.AutoscalerDecision) error {
	kept := "journaled"
	if !d.Journaled {
		kept = "latest, leader only"
	}
	fmt.Fprintf(w, "\n%s (%s): %s\n", d.At.UTC().Format(time.RFC3339), kept, d.Reason)
	if len(d.Vertices) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  VERTEX\tCURRENT\tCOMPUTED\tNEW\tREQUIRED/S\tOBSERVED/S\tTRUE RATE\tBUSIEST\tBUSY\tHOT\tNOTES")
	for _, v := range d.Vertices {
		fmt.Fprintf(tw, "  %d %s\t%d\t%d\t%d\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", v.Stage, v.Name, v.Current, v.Computed, v.New,
			formatCount(v.Required), formatCount(v.Observed), formatCount(v.TrueRate), v.Busiest, percent(v.Busy),
			percent(v.HotShare), orDash(strings.Join(v.Notes, "; ")))
	}
	return tw.Flush()
}

func intOr(n int, zero string) string {
	if n == 0 {
		return zero
	}
	return fmt.Sprint(n)
}
