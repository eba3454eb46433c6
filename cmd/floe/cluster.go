package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/floe-stream/floe/host/taskmanager"
	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/scheduler"
	"github.com/floe-stream/floe/storage/ckstore"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// s3Flags registers the checkpoint storage flags shared by the scheduler
// and task managers.
func s3Flags(fs *pflag.FlagSet) *ckstore.Options {
	o := &ckstore.Options{}
	fs.StringVar(&o.Endpoint, "s3-endpoint", "", "S3 endpoint of s3:// checkpoint storage, host:port or http(s)://host:port (default $AWS_ENDPOINT_URL, else AWS)")
	fs.StringVar(&o.Region, "s3-region", "", "S3 region (default $AWS_REGION or $AWS_DEFAULT_REGION)")
	fs.StringVar(&o.AccessKey, "s3-access-key", "", "S3 access key (default $AWS_ACCESS_KEY_ID; prefer the environment for secrets)")
	fs.StringVar(&o.SecretKey, "s3-secret-key", "", "S3 secret key (default $AWS_SECRET_ACCESS_KEY; prefer the environment for secrets)")
	return o
}

// guestCaps are the caps on what an operator instance may emit.
type guestCaps struct{ callOutput, record int64 }

// guestCapFlags registers the flags of the caps on operator output, shared
// by run and taskmanager, beside --max-memory.
func guestCapFlags(fs *pflag.FlagSet) *guestCaps {
	c := &guestCaps{}
	sizeVar(fs, &c.callOutput, "max-call-output", udf.DefaultMaxCallOutput, "cap on what one call into an operator (one batch) may emit, counting 64 bytes per record besides its value; a call that emits more is stopped and the job fails")
	sizeVar(fs, &c.record, "max-record-size", udf.DefaultMaxRecordSize, "cap on one record, key and value, handed to or emitted by an operator; a larger one fails the job")
	return c
}

const maxTasksHelp = "most tasks this process runs at once, each on an OS thread of its own; a job or deployment needing more is refused"

// signalContext is cancelled by SIGINT or SIGTERM.
func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// schedulerLong explains floe scheduler.
const schedulerLong = "Runs the job manager: the REST API for users and the gRPC endpoint for task managers.\nStops cleanly on SIGINT or SIGTERM.\n\nIts jobs are kept in a log in --data-dir: started again on the same directory, it\ngets every job back and adopts the tasks its task managers kept running. With\n--ha-addr and --ha-peers it is one of a group of schedulers (docs/ha.md): one\nleads, the others apply its log and take over when it is lost.\n\n" + tlsUsage

func schedulerCommand(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{Use: "scheduler", Short: "run the job manager: REST API and task-manager endpoint", Long: schedulerLong, Args: positional()}
	fs := cmd.Flags()
	rest := fs.String("rest-addr", "127.0.0.1:8081", "address of the REST API")
	rpc := fs.String("rpc-addr", "127.0.0.1:6123", "address task managers connect to (gRPC)")
	dataDir := fs.String("data-dir", "floe-scheduler", "directory for the job log, uploaded modules and, by default, checkpoints")
	hbInterval := fs.Duration("heartbeat-interval", scheduler.DefaultHeartbeatInterval, "how often task managers heartbeat")
	hbTimeout := fs.Duration("heartbeat-timeout", scheduler.DefaultHeartbeatTimeout, "how long without a heartbeat before a task manager is declared dead and its jobs restarted")
	var maxUpload int64
	sizeVar(fs, &maxUpload, "max-upload", scheduler.DefaultMaxUpload, "largest job submission accepted")
	ckptStorage := fs.String("checkpoint-storage", "", "default checkpoint storage of jobs: file:///path or s3://bucket/prefix (S3 endpoint and credentials from AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION; task managers need the same); default file://DATA-DIR/checkpoints")
	s3 := s3Flags(fs)
	retention := fs.Duration("state-retention", scheduler.DefaultStateRetention, "how long a finished job's queryable state stays queryable")
	partial := fs.Bool("partial-rescale", true, "keep the stages a rescale does not change running, suspended at its checkpoint, instead of restarting the whole job; --partial-rescale=false restarts the whole job (docs/rescaling.md)")
	haAddr := fs.String("ha-addr", "", "this scheduler's Raft address HOST:PORT in a group of schedulers (with --ha-peers); empty runs a single scheduler whose jobs are kept in --data-dir")
	haPeers := fs.String("ha-peers", "", "the Raft addresses of every scheduler of the group, this one included, comma-separated: H1:P1,H2:P2,H3:P3")
	haElection := fs.Duration("ha-election-timeout", 0, "how long followers wait for the leader before electing another (default 1s)")
	users := schedulerAuthFlags(fs)
	allowed := allowedPathsFlag(fs, "; default: none, or only --data-dir once the API is protected")
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn or error")
	tlsf := addTLSFlags(fs, true)
	cmd.RunE = func(*cobra.Command, []string) error {
		log, err := newLogger(stderr, *logLevel)
		if err != nil {
			fmt.Fprintf(stderr, "floe scheduler: %v\n", err)
			return exitCode(2)
		}
		peers, err := haFlags(*haAddr, *haPeers)
		if err != nil {
			fmt.Fprintf(stderr, "floe scheduler: %v\n", err)
			return exitCode(2)
		}
		tlsc, err := tlsf.load()
		if err == nil {
			err = tlsf.checkBind(tlsc, log, listenAddr{"rpc-addr", *rpc}, listenAddr{"rest-addr", *rest}, listenAddr{"ha-addr", *haAddr})
		}
		if err != nil {
			fmt.Fprintf(stderr, "floe scheduler: %v\n", err)
			return exitCode(2)
		}
		cfg := scheduler.Config{
			RPCAddr: *rpc, RESTAddr: *rest, DataDir: *dataDir, HeartbeatInterval: *hbInterval,
			HeartbeatTimeout: *hbTimeout, MaxUpload: maxUpload, CheckpointStorage: *ckptStorage, CheckpointOptions: *s3, StateRetention: *retention, Logger: log,
			RaftAddr: *haAddr, RaftPeers: peers, ElectionTimeout: *haElection, TLS: tlsc,
			CompileSQL: compileSQLForServer, PartialRescale: *partial,
		}
		if err := users.apply(&cfg); err != nil {
			fmt.Fprintf(stderr, "floe scheduler: %v\n", err)
			return exitCode(2)
		}
		cfg.AllowedPaths = allowedPaths(*allowed, tlsc != nil || cfg.AuthTokens != "", *dataDir)
		s, err := scheduler.NewServer(cfg)
		if err != nil {
			fmt.Fprintf(stderr, "floe scheduler: %v\n", err)
			return exitCode(1)
		}
		ctx, stop := signalContext()
		defer stop()
		go reloadOnHangup(ctx, s, log) // ends with ctx
		fmt.Fprintf(stdout, "scheduler: REST on %s://%s, task managers connect to %s\n", restScheme(tlsc), s.RESTAddr(), s.RPCAddr())
		if err := s.Run(ctx); err != nil {
			fmt.Fprintf(stderr, "floe scheduler: %v\n", err)
			return exitCode(1)
		}
		log.Info("scheduler stopped")
		return nil
	}
	return cmd
}

// taskManagerLong explains floe taskmanager.
const taskManagerLong = "Runs a task manager that offers --slots slots to the scheduler and runs the tasks it deploys.\nStops cleanly on SIGINT or SIGTERM.\n\nWhen it loses its scheduler, its tasks keep running for --scheduler-grace while it\nregisters again, trying each --scheduler address in turn, with the tasks it runs;\nthe scheduler that accepts (the leader) adopts those it can, and the others are\ncanceled. A scheduler that declared it dead makes it cancel every task at once.\n\n" + tlsUsage + "\nTask threads run at a lower priority (--task-nice), GOMAXPROCS follows the\nCPUs plus the running tasks, and GOGC defaults to 400 under a memory limit of\n3/4 of the machine's (or the container's) memory, so that state lookups and\nRPCs are served promptly while tasks keep every CPU busy; the GOMAXPROCS, GOGC\nand GOMEMLIMIT environment variables override these."

func taskManagerCommand(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{Use: "taskmanager", Short: "run a task manager that runs the scheduler's tasks", Long: taskManagerLong, Args: positional()}
	fs := cmd.Flags()
	sched := fs.String("scheduler", "127.0.0.1:6123", "the scheduler's RPC address, or a comma-separated list of the RPC addresses of every scheduler of a highly available group: the task manager registers with the one that leads, and with the next leader when it loses it")
	grace := fs.Duration("scheduler-grace", taskmanager.DefaultSchedulerGrace, "how long tasks keep running after the scheduler is lost (no heartbeat answered for the timeout it set, or not the leader any more), while this task manager re-registers with a scheduler that may adopt them; tasks no scheduler has adopted by then are canceled. Negative cancels them at once")
	rpc := fs.String("rpc-addr", "127.0.0.1:0", "address this task manager serves the scheduler and other task managers on (port 0 picks one)")
	slots := fs.Int("slots", 1, "number of slots: pipeline slices this task manager runs at once")
	dataDir := fs.String("data-dir", "floe-taskmanager", "directory for fetched modules, compiled code and state")
	var maxMemory, stateMemory int64
	sizeVar(fs, &maxMemory, "max-memory", udf.DefaultMaxMemory, "memory cap of each operator instance")
	caps := guestCapFlags(fs)
	maxTasks := fs.Int("max-tasks", taskmanager.DefaultMaxTasks, maxTasksHelp)
	sizeVar(fs, &stateMemory, "state-memory", 0, "memory budget of each subtask's pebble state (write-back cache, key filter, block cache, memtables); 0 takes an eighth of the memory limit shared by the slots")
	nice := fs.Int("task-nice", taskmanager.DefaultTaskNice, "added to the nice value of task threads, so that lookups and RPCs are served promptly; negative leaves them at the process's")
	udfTimeout := fs.Duration("udf-timeout", udf.DefaultCallTimeout, "how long one call into an operator may run before it is stopped; 0 runs operators without the fuel checks that stop them (a few percent faster, trusted code only)")
	metricsAddr := fs.String("metrics-addr", "", "serve Prometheus metrics at /metrics on this HOST:PORT (port 0 picks one); none when empty (docs/metrics.md)")
	s3 := s3Flags(fs)
	allowed := allowedPathsFlag(fs, "; this task manager checks them again before a task opens anything; include a local --checkpoint-storage of the cluster; default: none")
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn or error")
	tlsf := addTLSFlags(fs, true)
	cmd.RunE = func(*cobra.Command, []string) error {
		rt := taskmanager.TuneRuntime()
		log, err := newLogger(stderr, *logLevel)
		if err != nil {
			fmt.Fprintf(stderr, "floe taskmanager: %v\n", err)
			return exitCode(2)
		}
		scheds, err := schedulerList(*sched)
		if err != nil {
			fmt.Fprintf(stderr, "floe taskmanager: %v\n", err)
			return exitCode(2)
		}
		tlsc, err := tlsf.load()
		if err == nil {
			err = tlsf.checkBind(tlsc, log, listenAddr{"rpc-addr", *rpc}, listenAddr{"metrics-addr", *metricsAddr})
		}
		if err != nil {
			fmt.Fprintf(stderr, "floe taskmanager: %v\n", err)
			return exitCode(2)
		}
		tm, err := taskmanager.New(taskmanager.Config{
			Schedulers: scheds, SchedulerGrace: *grace, RPCAddr: *rpc, Slots: *slots, DataDir: *dataDir, MaxMemory: maxMemory,
			MaxCallOutput: caps.callOutput, MaxRecordSize: caps.record, MaxTasks: *maxTasks,
			CallTimeout: *udfTimeout, Uninterruptible: *udfTimeout == 0, CheckpointOptions: *s3, Logger: log,
			TaskNice: *nice, Runtime: rt, MetricsAddr: *metricsAddr, StateMemory: stateMemory, TLS: tlsc,
			AllowedPaths: allowedPaths(*allowed, false, *dataDir),
		})
		if err != nil {
			fmt.Fprintf(stderr, "floe taskmanager: %v\n", err)
			return exitCode(1)
		}
		ctx, stop := signalContext()
		defer stop()
		fmt.Fprintf(stdout, "taskmanager: serving on %s with %d slots, scheduler %s\n", tm.Addr(), *slots, strings.Join(scheds, ","))
		if a := tm.MetricsAddr(); a != "" {
			fmt.Fprintf(stdout, "taskmanager: metrics on http://%s/metrics\n", a)
		}
		start := time.Now()
		if err := tm.Run(ctx); err != nil {
			fmt.Fprintf(stderr, "floe taskmanager: %v\n", err)
			return exitCode(1)
		}
		log.Info("task manager stopped", "uptime", time.Since(start).Round(time.Second))
		return nil
	}
	return cmd
}

// schedulerList splits --scheduler's comma-separated addresses.
func schedulerList(flag string) ([]string, error) {
	var out []string
	for _, a := range strings.Split(flag, ",") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--scheduler: no address in %q", flag)
	}
	return out, nil
}

// haFlags checks --ha-addr and --ha-peers and returns the peers: both or
// neither, and the peers name this scheduler.
func haFlags(addr, peers string) ([]string, error) {
	if addr == "" && peers == "" {
		return nil, nil
	}
	if addr == "" || peers == "" {
		return nil, errors.New("--ha-addr and --ha-peers go together: this scheduler's Raft address and every member's")
	}
	var out []string
	for _, p := range strings.Split(peers, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	if !slices.Contains(out, addr) {
		return nil, fmt.Errorf("--ha-peers %q does not name this scheduler's --ha-addr %q", peers, addr)
	}
	return out, nil
}
