package main

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// jobLong explains floe job; cobra lists its commands.
const jobLong = `Manages the jobs of a Floe cluster through the scheduler's REST API.

Every command takes --server URL, the scheduler's REST address, or a
comma-separated list of a scheduler group's, of which the first that answers
is used; the default is $FLOE_SERVER, or http://127.0.0.1:8081 if that is
unset. An https:// scheduler's certificate is checked against the CA in
--tls-ca FILE, default $FLOE_TLS_CA. A scheduler that checks tokens needs
--token TOKEN, or better $FLOE_TOKEN (docs/security.md).

Exit codes: 0 success; 1 failure (the spec or a module file is invalid, the
scheduler refused the request or cannot be reached, a waited-for job did not
finish, or a waited-for rescale did not complete); 2 bad command line; 130
interrupted.`

// checkpointIntervalHelp is the help of --checkpoint-interval, which floe
// run and floe job submit share.
//
// NB: turning checkpoints on also changes the default restart strategy of
// a spec that names none, from none to exponentialDelay.
const checkpointIntervalHelp = "turn checkpoints on at this interval, e.g. 10s, or change the spec's; " +
	"a failed task then restarts the job from the latest checkpoint (unless the spec's restartStrategy " +
	"says otherwise, with a back-off of 1s doubling to 1m), and a file sink commits each record exactly once"

// fromSavepointHelp and allowNonRestoredHelp are the help of the flags of
// a start from a savepoint, which floe run and floe job submit share.
const (
	fromSavepointHelp = "start the job from the savepoint at this `URL` (file:// or s3://, the directory that " +
		"holds its _metadata), matching its state to the job's sources, operators and sinks by uid"
	allowNonRestoredHelp = "with --from-savepoint, drop the savepoint's state for uids the job no longer has " +
		"instead of refusing the savepoint"
)

// defaultServer is the scheduler address when neither --server nor
// $FLOE_SERVER gives one.
const defaultServer = "http://127.0.0.1:8081"

// jobCommand builds floe job and its subcommands.
func jobCommand(stdout, stderr io.Writer) *cobra.Command {
	g := groupCommand("job", "manage the jobs of a cluster through its scheduler", jobLong)
	addCommands(g, map[string]string{
		"submit":           "submit a job, pushing the modules the scheduler lacks; prints the job id",
		"list":             "list the jobs, newest first",
		"status":           "show a job: state, vertices and subtasks",
		"checkpoints":      "list a job's checkpoints, newest first",
		"metrics":          "show a job's records, rates, back-pressure and progress",
		"exceptions":       "list a job's failures, newest first",
		"logs":             "print the recent lines its guest code logged",
		"rescale":          "change a running job's parallelism through a checkpoint",
		"autoscaler":       "show a job's autoscaling policy and decisions; change the policy",
		"savepoint":        "take a savepoint of a running job; waits and prints its path",
		"savepoint-status": "show a savepoint trigger's state and path",
		"stop":             "take a savepoint, then stop the job; waits and prints the path",
		"cancel":           "cancel a job; prints its state afterwards",
		"wait":             "block until a job ends; prints its final state",
	}, jobSubmitCmd(stdout, stderr), jobListCmd(stdout, stderr), jobStatusCmd(stdout, stderr),
		jobCheckpointsCmd(stdout, stderr), jobMetricsCmd(stdout, stderr), jobExceptionsCmd(stdout, stderr),
		jobLogsCmd(stdout, stderr), jobRescaleCmd(stdout, stderr), jobAutoscalerCmd(stdout, stderr), jobSavepointCmd(stdout, stderr),
		jobSavepointStatusCmd(stdout, stderr), jobStopCmd(stdout, stderr), jobCancelCmd(stdout, stderr), jobWaitCmd(stdout, stderr))
	return g
}

// addCommands adds cmds to group g, each with its one-line description
// from shorts.
func addCommands(g *cobra.Command, shorts map[string]string, cmds ...*cobra.Command) {
	for _, c := range cmds {
		c.Short = shorts[c.Name()]
		g.AddCommand(c)
	}
}

// jobCLI is what every job command shares: its flags, the scheduler address
// and where it writes.
type jobCLI struct {
	// group is the command group, "job" or "state": floe GROUP NAME.
	group          string
	name           string
	cmd            *cobra.Command
	fs             *pflag.FlagSet
	server         string
	tls            *clientTLSFlags
	token          string
	stdout, stderr io.Writer
}

// newJobCLI prepares floe job name; synopsis follows the command name in
// the usage line and about explains the command.
func newJobCLI(name, synopsis, about string, stdout, stderr io.Writer) *jobCLI {
	return newGroupCLI("job", name, synopsis, about, stdout, stderr)
}

// newGroupCLI prepares floe group name, a command that talks to the
// scheduler's REST API.
func newGroupCLI(group, name, synopsis, about string, stdout, stderr io.Writer) *jobCLI {
	cmd := &cobra.Command{Use: name + " " + synopsis, Long: about}
	j := &jobCLI{group: group, name: name, cmd: cmd, fs: cmd.Flags(), stdout: stdout, stderr: stderr}
	server := os.Getenv("FLOE_SERVER")
	if server == "" {
		server = defaultServer
	}
	j.fs.StringVar(&j.server, "server", server, "`URL` of the scheduler's REST API, or a comma-separated list of a scheduler group's: "+
		"the first that answers is used; $FLOE_SERVER sets the default")
	j.tls = addClientTLSFlags(j.fs)
	j.fs.StringVar(&j.token, "token", "", tokenFlagHelp)
	return j
}

// command finishes j's command: names are its positional arguments, and
// body runs it and returns the exit code.
func (j *jobCLI) command(body func(pos []string) int, names ...string) *cobra.Command {
	j.cmd.Args = positional(names...)
	return j.finish(body)
}

// finish sets the command's RunE: check --server, then run body.
func (j *jobCLI) finish(body func(pos []string) int) *cobra.Command {
	j.cmd.RunE = func(_ *cobra.Command, args []string) error {
		if err := j.checkServer(); err != nil {
			return codeError(j.usageError(err))
		}
		return codeError(body(args))
	}
	return j.cmd
}

// checkServer normalizes --server, a comma-separated list of URLs: a bare
// host:port means http.
func (j *jobCLI) checkServer() error {
	var servers []string
	for s := range strings.SplitSeq(j.server, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		if !strings.Contains(s, "://") {
			s = "http://" + s
		}
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("--server %q: want an http:// or https:// URL, or a comma-separated list of them", s)
		}
		servers = append(servers, s)
	}
	if len(servers) == 0 {
		return fmt.Errorf("--server %q: want an http:// or https:// URL, or a comma-separated list of them", j.server)
	}
	j.server = strings.Join(servers, ",")
	return nil
}

// usageError reports a bad command line and returns its exit code, 2.
func (j *jobCLI) usageError(err error) int {
	fmt.Fprintf(j.stderr, "floe %s %s: %v\n", j.group, j.name, err)
	usageHint(j.stderr, j.cmd)
	return 2
}

// run calls fn with a client of the scheduler and a context that SIGINT and
// SIGTERM cancel, and returns the exit code: 0 if fn succeeds, 130 if it was
// interrupted, 1 after reporting any other error.
func (j *jobCLI) run(fn func(ctx context.Context, c *client.Client) error) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	c, err := j.client()
	if err == nil {
		err = fn(ctx, c)
	}
	switch {
	case err == nil:
		return 0
	case ctx.Err() != nil:
		fmt.Fprintf(j.stderr, "floe %s %s: interrupted\n", j.group, j.name)
		return 130
	case errors.As(err, new(x509.UnknownAuthorityError)):
		err = fmt.Errorf("the scheduler's certificate is not signed by a CA this client trusts: give the cluster CA with --tls-ca FILE or $FLOE_TLS_CA (%w)", err)
	case errors.Is(err, api.ErrUnauthenticated):
		err = j.unauthenticated(err)
	case client.IsUnreachable(err) && !strings.Contains(j.server, ","):
		err = fmt.Errorf("cannot reach the scheduler at %s: is `floe scheduler` running? (%w)", j.server, err)
	case client.IsUnreachable(err):
		err = fmt.Errorf("cannot reach any of the schedulers at %s: is `floe scheduler` running? (%w)", j.server, err)
	}
	fmt.Fprintf(j.stderr, "floe %s %s: %v\n", j.group, j.name, err)
	return 1
}

func jobSubmitCmd(stdout, stderr io.Writer) *cobra.Command {
	j := newJobCLI("submit", "JOB.yaml [--set key=value]... [flags]",
		"Uploads a job to the scheduler: the spec file as written, and each Wasm module\n"+
			"it declares, read from its path relative to the spec's directory. A module\n"+
			"goes up only when the scheduler lacks it: its SHA-256 is asked first, a\n"+
			"missing module is pushed (as floe module push does) and the job names the\n"+
			"others by digest, so a job submitted again uploads no module. The spec is\n"+
			"checked with the --set values before anything is sent. Prints the job's id,\n"+
			"and nothing else, on stdout. With --from-savepoint the job starts from the\n"+
			"state of a savepoint (docs/savepoints.md); with --from-checkpoint, from the\n"+
			"latest completed checkpoint of another job, which the scheduler names.\n"+
			"A file ending in .sql is a stream SQL script (docs/sql.md): it is compiled\n"+
			"here, as floe sql compiles it, and the compiled spec is submitted.\n", stdout, stderr)
	set := j.fs.StringArray("set", nil, "set a job parameter, `key=value` (repeatable)")
	parallelism := j.fs.Int("parallelism", 0, "default parallelism of the job, overriding the spec's (0 keeps it)")
	interval := j.fs.Duration("checkpoint-interval", 0, checkpointIntervalHelp+" (0 keeps the spec's)")
	from := j.fs.String("from-savepoint", "", fromSavepointHelp)
	fromCkpt := j.fs.String("from-checkpoint", "", "start the job from the latest completed checkpoint of job `ID`, "+
		"as --from-savepoint on the path floe job checkpoints ID --latest-path prints")
	allow := j.fs.Bool("allow-non-restored-state", false, allowNonRestoredHelp)
	wait := j.fs.Bool("wait-for-slots", false, "accept the job even if it needs more slots than the cluster's task managers have; it waits for more to register")
	return j.command(func(pos []string) int {
		params, err := jobspec.ParseSet(*set)
		switch {
		case err != nil:
		case *interval < 0:
			err = fmt.Errorf("--checkpoint-interval %v: want a duration > 0, or 0 for the spec's", *interval)
		case *from != "" && *fromCkpt != "":
			err = errors.New("--from-savepoint and --from-checkpoint exclude each other")
		case *allow && *from == "" && *fromCkpt == "":
			err = errors.New("--allow-non-restored-state needs --from-savepoint or --from-checkpoint")
		}
		if err != nil {
			return j.usageError(err)
		}
		opts := client.SubmitOptions{Set: params, Parallelism: *parallelism, CheckpointInterval: *interval,
			FromSavepoint: *from, AllowNonRestoredState: *allow, WaitForSlots: *wait}
		return j.run(func(ctx context.Context, c *client.Client) error {
			if *fromCkpt != "" {
				dir, err := c.LatestCheckpoint(ctx, *fromCkpt)
				if err != nil {
					return fmt.Errorf("--from-checkpoint: %w", err)
				}
				opts.FromSavepoint = dir
			}
			spec := pos[0]
			if isSQL(spec) {
				compiled, cleanup, err := compileSQLToFile(spec, *set)
				if err != nil {
					return err
				}
				defer cleanup()
				spec = compiled
			}
			id, err := c.SubmitFiles(ctx, spec, opts)
			if err == nil {
				fmt.Fprintln(stdout, id)
			}
			return err
		})
	}, "JOB.yaml")
}

// outputFlag registers -o, the output format of list, status and
// checkpoints.
func (j *jobCLI) outputFlag() *string {
	return j.fs.StringP("output", "o", "text", "output `format`: text or json")
}

// checkOutput reports a -o value other than text and json.
func checkOutput(format string) error {
	if format != "text" && format != "json" {
		return fmt.Errorf("-o %q: want text or json", format)
	}
	return nil
}

func jobListCmd(stdout, stderr io.Writer) *cobra.Command {
	j := newJobCLI("list", "[flags]",
		"Lists every job the scheduler knows, newest first: its id, name, state,\n"+
			"attempt (1, plus 1 per restart) and submission time. -o json prints the\n"+
			"list as the REST API returns it.\n", stdout, stderr)
	output := j.outputFlag()
	return j.command(func([]string) int {
		if err := checkOutput(*output); err != nil {
			return j.usageError(err)
		}
		return j.run(func(ctx context.Context, c *client.Client) error {
			jobs, err := c.Jobs(ctx)
			if err != nil {
				return err
			}
			if *output == "json" {
				return printJSON(stdout, struct {
					Jobs []api.JobStatus `json:"jobs"`
				}{jobs})
			}
			return printJobs(stdout, jobs)
		})
	})
}

func printJobs(w io.Writer, jobs []api.JobStatus) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tSTATE\tATTEMPT\tSUBMITTED")
	for _, job := range jobs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", job.ID, job.Name, job.State, job.Attempt, formatTime(job.SubmittedAt))
	}
	return tw.Flush()
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func formatTime(t time.Time) string {
	return t.Format(time.RFC3339)
}

func jobStatusCmd(stdout, stderr io.Writer) *cobra.Command {
	j := newJobCLI("status", "ID [--watch [--interval D]] [flags]",
		"Shows a job: its state and why it waits or failed, then each vertex (a stage\n"+
			"of chained operators) with its parallelism, records in and out and\n"+
			"back-pressure, and under it each subtask with its state and task manager.\n"+
			"-o json prints the job as the REST API returns it. With --watch it shows it\n"+
			"again every --interval until the job ends or Ctrl-C: in place on a terminal,\n"+
			"else one after another.\n", stdout, stderr)
	output := j.outputFlag()
	watch := j.fs.Bool("watch", false, "show the status again every --interval until the job ends")
	interval := j.fs.Duration("interval", 2*time.Second, "with --watch, how often to refresh")
	return j.command(func(pos []string) int {
		err := checkOutput(*output)
		if err == nil && *interval <= 0 {
			err = fmt.Errorf("--interval %v: want a duration > 0", *interval)
		}
		if err != nil {
			return j.usageError(err)
		}
		return j.run(func(ctx context.Context, c *client.Client) error {
			if *watch {
				return watchStatus(ctx, c, pos[0], *interval, *output == "json", stdout)
			}
			job, err := c.Job(ctx, pos[0])
			if err != nil {
				return err
			}
			if *output == "json" {
				return printJSON(stdout, job)
			}
			return printStatus(stdout, job)
		})
	}, "ID")
}

// printStatus writes a job as floe job status shows it.
func printStatus(w io.Writer, job api.JobStatus) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	printSummary(tw, job)
	if len(job.Vertices) > 0 {
		fmt.Fprintln(tw, "\nVERTEX\tPARALLELISM\tSTATE\tTASK MANAGER\tRECORDS IN\tRECORDS OUT\tBACK-PRESSURE")
		for _, v := range job.Vertices {
			printVertex(tw, v)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	printGraph(w, job.Vertices)
	printSubtaskErrors(w, job.Vertices)
	printHistory(w, job.History, job.HistoryDropped)
	return nil
}

// printSummary writes the job-wide fields, one per line.
func printSummary(w io.Writer, job api.JobStatus) {
	fmt.Fprintf(w, "ID:\t%s\nName:\t%s\nState:\t%s\n", job.ID, job.Name, job.State)
	if job.Message != "" {
		fmt.Fprintf(w, "Message:\t%s\n", job.Message)
	}
	fmt.Fprintf(w, "Attempt:\t%d\nParallelism:\t%d\nSubmitted:\t%s\n", job.Attempt, job.Parallelism, formatTime(job.SubmittedAt))
	if job.StartedAt != nil {
		fmt.Fprintf(w, "Started:\t%s\n", formatTime(*job.StartedAt))
	}
	if job.EndedAt != nil {
		fmt.Fprintf(w, "Ended:\t%s\n", formatTime(*job.EndedAt))
	}
}

// printGraph writes the edges between the vertices of a job that is not a
// line, one per line: "0 a --forward--> 3 union-reader". A line's edges
// follow from the vertex table.
func printGraph(w io.Writer, vertices []api.VertexStatus) {
	line, edges := true, 0
	for i, v := range vertices {
		line = line && (i == 0 && len(v.Inputs) == 0 || len(v.Inputs) == 1 && v.Inputs[0].Stage == i-1)
		edges += len(v.Inputs)
	}
	if line || edges == 0 {
		return // a line, or a scheduler that does not tell the edges
	}
	fmt.Fprintln(w, "\nEdges:")
	for _, v := range vertices {
		for _, in := range v.Inputs {
			name := "?"
			if in.Stage >= 0 && in.Stage < len(vertices) {
				name = vertices[in.Stage].Name
			}
			fmt.Fprintf(w, "  %d %s --%s--> %d %s\n", in.Stage, name, in.Partitioning, v.Stage, v.Name)
		}
	}
}

// printVertex writes a vertex's row and, indented under it, its subtasks'.
func printVertex(w io.Writer, v api.VertexStatus) {
	fmt.Fprintf(w, "%d %s\t%d\t\t\t%d\t%d\t%s\n", v.Stage, v.Name, v.Parallelism, v.RecordsIn, v.RecordsOut, percent(v.BackPressure))
	for _, s := range v.Subtasks {
		fmt.Fprintf(w, "  subtask %d\t\t%s\t%s\t%d\t%d\t%s\n", s.Subtask, s.State, orDash(s.TaskManager),
			s.RecordsIn, s.RecordsOut, percent(s.BackPressure))
	}
}

func printSubtaskErrors(w io.Writer, vertices []api.VertexStatus) {
	for _, v := range vertices {
		for _, s := range v.Subtasks {
			if s.Error != "" {
				fmt.Fprintf(w, "\nError of %s, subtask %d: %s\n", v.Name, s.Subtask, s.Error)
			}
		}
	}
}

// printHistory writes a job's history, saying first how many older
// entries the scheduler no longer keeps.
func printHistory(w io.Writer, history []api.Event, dropped int) {
	if len(history) == 0 {
		return
	}
	fmt.Fprintln(w, "\nHistory:")
	if dropped > 0 {
		fmt.Fprintf(w, "  (%d older entries dropped)\n", dropped)
	}
	for _, e := range history {
		line := fmt.Sprintf("  %s  %s", formatTime(e.Time), e.State)
		if e.Message != "" {
			line += ": " + e.Message
		}
		fmt.Fprintln(w, line)
	}
}

func percent(f float64) string {
	return fmt.Sprintf("%.0f%%", f*100)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func jobCheckpointsCmd(stdout, stderr io.Writer) *cobra.Command {
	j := newJobCLI("checkpoints", "ID [flags]",
		"Lists a job's checkpoints, newest first: each one's id, status (IN_PROGRESS,\n"+
			"COMPLETED or FAILED), the attempt that took it, when it was triggered, how\n"+
			"long it took, the size of all the state it refers to (FULL) and of what it\n"+
			"uploaded (INCREMENTAL), and why it failed. A job without checkpoints has an\n"+
			"empty list. -o json prints the list as the REST API returns it, with each\n"+
			"subtask's part. --latest-path prints only the directory of the latest\n"+
			"completed checkpoint, which the job retains: pass it to --from-savepoint.\n", stdout, stderr)
	output := j.outputFlag()
	latest := j.fs.Bool("latest-path", false, "print only the path of the latest completed checkpoint")
	return j.command(func(pos []string) int {
		if err := checkOutput(*output); err != nil {
			return j.usageError(err)
		}
		return j.run(func(ctx context.Context, c *client.Client) error {
			cps, err := c.Checkpoints(ctx, pos[0])
			if err != nil {
				return err
			}
			if *latest {
				dir, err := client.LatestCheckpointDir(pos[0], cps)
				if err == nil {
					fmt.Fprintln(stdout, dir)
				}
				return err
			}
			if *output == "json" {
				return printJSON(stdout, struct {
					Checkpoints []api.CheckpointStatus `json:"checkpoints"`
				}{cps})
			}
			return printCheckpoints(stdout, cps)
		})
	}, "ID")
}

// printCheckpoints writes checkpoints as floe job checkpoints shows them.
// What a checkpoint in progress does not know yet is a dash.
func printCheckpoints(w io.Writer, cps []api.CheckpointStatus) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATUS\tATTEMPT\tTRIGGERED\tDURATION\tFULL\tINCREMENTAL\tMESSAGE")
	for _, cp := range cps {
		duration, full, incr := "-", "-", "-"
		if cp.Status != api.CheckpointInProgress {
			duration = (time.Duration(cp.DurationMillis) * time.Millisecond).String()
		}
		if cp.Status == api.CheckpointCompleted {
			full, incr = formatBytes(cp.FullBytes), formatBytes(cp.IncrementalBytes)
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", cp.ID, cp.Status, cp.Attempt, formatTime(cp.TriggeredAt),
			duration, full, incr, orDash(oneLine(cp.Message)))
	}
	return tw.Flush()
}

// formatBytes writes n bytes in the largest binary unit not above it, with
// one decimal: 512 B, 1.5 KiB, 20.0 MiB.
func formatBytes(n int64) string {
	const units = "KMGTPE"
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n)/1024, 0
	// NB: 1023.95 rather than 1024, so that rounding to one decimal never
	// writes "1024.0 KiB" for what is 1.0 MiB.
	for v >= 1023.95 && i < len(units)-1 {
		v, i = v/1024, i+1
	}
	return fmt.Sprintf("%.1f %ciB", v, units[i])
}

// oneLine joins the lines of s, so that a message keeps a table row whole.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func jobCancelCmd(stdout, stderr io.Writer) *cobra.Command {
	j := newJobCLI("cancel", "ID [flags]",
		"Cancels a job and prints its state afterwards. Cancelling a job that has\n"+
			"already ended is an error.\n", stdout, stderr)
	return j.command(func(pos []string) int {
		return j.run(func(ctx context.Context, c *client.Client) error {
			return cancelJob(ctx, c, pos[0], stdout)
		})
	}, "ID")
}

// cancelJob cancels job id and prints its state afterwards.
func cancelJob(ctx context.Context, c *client.Client, id string, stdout io.Writer) error {
	if err := c.Cancel(ctx, id); err != nil {
		return err
	}
	job, err := c.Job(ctx, id)
	if err == nil {
		fmt.Fprintln(stdout, job.State)
	}
	return err
}

func jobWaitCmd(stdout, stderr io.Writer) *cobra.Command {
	j := newJobCLI("wait", "ID [--timeout D] [flags]",
		"Blocks until a job ends and prints its final state. Exits 0 only if the job\n"+
			"FINISHED; for FAILED or CANCELED it exits 1 with the job's message on\n"+
			"stderr, as it does when --timeout passes first.\n", stdout, stderr)
	timeout := j.fs.Duration("timeout", 0, "give up after this long, e.g. 10m (0 waits forever)")
	poll := j.fs.Duration("poll", client.DefaultPoll, "how often to ask the scheduler for the job's state")
	return j.command(func(pos []string) int {
		return j.run(func(ctx context.Context, c *client.Client) error {
			return waitJob(ctx, c, pos[0], *timeout, *poll, stdout)
		})
	}, "ID")
}

// waitJob waits for job id and prints its final state; the error says why
// the job did not finish.
func waitJob(ctx context.Context, c *client.Client, id string, timeout, poll time.Duration, stdout io.Writer) error {
	wctx := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		wctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	job, err := c.Wait(wctx, id, poll)
	switch {
	case err != nil && ctx.Err() == nil && wctx.Err() != nil:
		return fmt.Errorf("timed out after %v; job %s is %s", timeout, id, orDash(job.State))
	case err != nil:
		return err
	}
	fmt.Fprintln(stdout, job.State)
	if job.State != api.JobFinished {
		return fmt.Errorf("job %s %s: %s", id, job.State, orDash(job.Message))
	}
	return nil
}

func jobRescaleCmd(stdout, stderr io.Writer) *cobra.Command {
	j := newJobCLI("rescale", "ID [--parallelism N] [--operator uid=N]... [--wait [--timeout D]] [flags]",
		"Changes the parallelism of a running job that takes checkpoints (submit it\n"+
			"with --checkpoint-interval): the scheduler takes a checkpoint, stops the job\n"+
			"and deploys it again at the new parallelism, each subtask restoring the key\n"+
			"groups it now owns. Prints what it asked for. With --wait it then waits until\n"+
			"the job runs at the new parallelism and prints the scheduler's report, with\n"+
			"the downtime; it exits 1 if the rescale is abandoned, the job ends first or\n"+
			"--timeout passes. docs/rescaling.md explains rescaling.\n", stdout, stderr)
	parallelism := j.fs.Int("parallelism", 0, "the job's new default parallelism, for every stage without its own (0 keeps it)")
	ops := j.fs.StringArray("operator", nil, "the new parallelism of one source, operator or sink, `uid=N` (repeatable)")
	wait := j.fs.Bool("wait", false, "wait until the job runs at the new parallelism")
	timeout := j.fs.Duration("timeout", 0, "with --wait, give up after this long, e.g. 5m (0 waits forever)")
	poll := j.fs.Duration("poll", client.DefaultPoll, "with --wait, how often to ask the scheduler for the job's state")
	return j.command(func(pos []string) int {
		req, err := rescaleRequest(*parallelism, *ops)
		if err == nil && !*wait && (j.isSet("timeout") || j.isSet("poll")) {
			err = errors.New("--timeout and --poll need --wait")
		}
		if err != nil {
			return j.usageError(err)
		}
		return j.run(func(ctx context.Context, c *client.Client) error {
			if !*wait {
				return askRescale(ctx, c, pos[0], req, stdout)
			}
			return rescaleAndWait(ctx, c, pos[0], req, *timeout, *poll, stdout)
		})
	}, "ID")
}

// isSet reports whether the command line set the flag name.
func (j *jobCLI) isSet(name string) bool {
	return j.fs.Changed(name)
}

// rescaleRequest builds a rescale from --parallelism and the --operator
// values, refusing what no job could accept.
func rescaleRequest(parallelism int, ops []string) (api.RescaleRequest, error) {
	r := api.RescaleRequest{Parallelism: parallelism}
	if parallelism < 0 {
		return r, fmt.Errorf("--parallelism %d: want an integer >= 1, or 0 to keep the job's", parallelism)
	}
	for _, op := range ops {
		uid, value, _ := strings.Cut(op, "=")
		n, err := strconv.Atoi(value)
		switch {
		case uid == "" || err != nil || n < 1:
			return r, fmt.Errorf("--operator %q: want uid=N with N >= 1", op)
		case r.Operators[uid] != 0:
			return r, fmt.Errorf("--operator %q: %s is given twice", op, uid)
		case r.Operators == nil:
			r.Operators = make(map[string]int)
		}
		r.Operators[uid] = n
	}
	if r.Parallelism == 0 && len(r.Operators) == 0 {
		return r, errors.New("give the new parallelism: --parallelism N, --operator uid=N, or both")
	}
	return r, nil
}

// describeRescale writes what r asks for: "parallelism 4, upper=8".
func describeRescale(r api.RescaleRequest) string {
	var parts []string
	if r.Parallelism != 0 {
		parts = append(parts, fmt.Sprintf("parallelism %d", r.Parallelism))
	}
	for _, uid := range slices.Sorted(maps.Keys(r.Operators)) {
		parts = append(parts, fmt.Sprintf("%s=%d", uid, r.Operators[uid]))
	}
	return strings.Join(parts, ", ")
}

// askRescale asks for the rescale and prints what it asked for.
func askRescale(ctx context.Context, c *client.Client, id string, r api.RescaleRequest, stdout io.Writer) error {
	if err := c.Rescale(ctx, id, r); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "rescaling %s to %s\n", id, describeRescale(r))
	return nil
}

// rescaleAndWait asks for the rescale, then polls the job until its history
// tells how the rescale ended, and prints the scheduler's report of a
// completed one. The error says why it did not complete.
func rescaleAndWait(ctx context.Context, c *client.Client, id string, r api.RescaleRequest, timeout, poll time.Duration,
	stdout io.Writer) error {
	// NB: the events of this rescale are those after the history as it was
	// before the request; the scheduler refuses a rescale while another is
	// under way, so none of them belongs to an earlier one.
	job, err := c.Job(ctx, id)
	if err != nil {
		return err
	}
	since := job.HistoryDropped + len(job.History)
	if err := askRescale(ctx, c, id, r, stdout); err != nil {
		return err
	}
	wctx := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		wctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	msg, job, err := waitRescale(wctx, c, id, since, poll)
	switch {
	case err != nil && ctx.Err() == nil && wctx.Err() != nil:
		return fmt.Errorf("timed out after %v; job %s is %s", timeout, id, stateAndMessage(job))
	case err != nil:
		return err
	}
	fmt.Fprintln(stdout, msg)
	return nil
}

// waitRescale polls job id every poll until its events after the first
// since tell how a rescale ended, and returns the message of the event
// that reports it done. It returns the last status seen, with an error for
// a rescale that did not complete, a poll that failed or the end of ctx.
func waitRescale(ctx context.Context, c *client.Client, id string, since int, poll time.Duration) (string, api.JobStatus, error) {
	if poll <= 0 {
		poll = client.DefaultPoll
	}
	tick := time.NewTicker(poll)
	defer tick.Stop()
	var last api.JobStatus
	for {
		job, err := c.Job(ctx, id)
		if err != nil {
			return "", last, err
		}
		last = job
		if msg, ended, err := rescaleEnd(job, since); ended {
			return msg, job, err
		}
		select {
		case <-ctx.Done():
			return "", last, ctx.Err()
		case <-tick.C:
		}
	}
}

// rescaleEnd looks for the end of a rescale in the events of job after the
// first since: a RUNNING event whose message starts "rescaled to", whose
// message it returns; an event that reports the rescale abandoned or
// failed; or the job's end. ended is false while the rescale goes on.
//
// since counts every event of the job, those the scheduler has dropped
// from the front of its history too (HistoryDropped), so that a history
// trimmed between two polls is neither read from the wrong place nor
// waited on forever. When the scheduler has dropped some of the events
// after since, rescaleEnd reads all it still has.
func rescaleEnd(job api.JobStatus, since int) (msg string, ended bool, err error) {
	from := min(max(since-job.HistoryDropped, 0), len(job.History))
	for _, e := range job.History[from:] {
		switch {
		case strings.HasPrefix(e.Message, "rescaled to"):
			return e.Message, true, nil
		case strings.HasPrefix(e.Message, "rescale abandoned") || strings.HasPrefix(e.Message, "rescale failed"):
			return "", true, fmt.Errorf("job %s: %s", job.ID, e.Message)
		case api.Terminal(e.State):
			return "", true, fmt.Errorf("job %s %s during the rescale: %s", job.ID, e.State, orDash(e.Message))
		}
	}
	return "", false, nil
}

// stateAndMessage writes a job's state and, if it has one, its message.
func stateAndMessage(job api.JobStatus) string {
	if job.Message == "" {
		return orDash(job.State)
	}
	return job.State + " (" + job.Message + ")"
}
