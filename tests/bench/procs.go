package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
)

// floeBinary builds ./cmd/floe into the env's directory, once.
func (e *env) floeBinary() (string, error) {
	bin := filepath.Join(e.dir, "floe")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", bin, "./cmd/floe")
	cmd.Dir = e.root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building cmd/floe: %v\n%s", err, strings.TrimSpace(string(out)))
	}
	return bin, nil
}

// procCluster is a `floe scheduler` process and `floe taskmanager`
// processes on loopback, reached through the scheduler's REST API. The
// task managers' stdout, where stdout sinks write, is /dev/null.
type procCluster struct {
	rest  string // the REST API's base URL
	procs []*exec.Cmd
	dir   string
	http  *http.Client
}

// startProcCluster starts a scheduler and tms task managers of slots
// slots each, with their data and logs under dir, and waits until the
// task managers have registered.
func startProcCluster(ctx context.Context, bin, dir string, tms, slots int) (*procCluster, error) {
	c := &procCluster{dir: dir, http: &http.Client{Timeout: 30 * time.Second}}
	first := newLineCatcher()
	sched, err := c.start(bin, "scheduler", first, "scheduler", "--rest-addr", "127.0.0.1:0", "--rpc-addr", "127.0.0.1:0",
		"--data-dir", filepath.Join(dir, "scheduler"), "--log-level", "warn")
	if err != nil {
		return nil, err
	}
	// "scheduler: REST on http://ADDR, task managers connect to ADDR"
	line, err := first.wait(30*time.Second, sched)
	f := strings.Fields(line)
	var rpc string
	if err == nil && len(f) == 9 && strings.HasPrefix(f[3], "http://") {
		c.rest, rpc = strings.TrimSuffix(f[3], ","), f[8]
	} else if err == nil {
		err = errors.New("unexpected")
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("scheduler start-up line %q: %w (log in %s)", line, err, dir), c.stop())
	}
	for i := range tms {
		name := fmt.Sprintf("taskmanager-%d", i)
		if _, err := c.start(bin, name, nil, "taskmanager", "--scheduler", rpc, "--slots", strconv.Itoa(slots),
			"--data-dir", filepath.Join(dir, name), "--log-level", "warn"); err != nil {
			return nil, errors.Join(err, c.stop())
		}
	}
	if err := c.awaitTaskManagers(ctx, tms); err != nil {
		return nil, errors.Join(err, c.stop())
	}
	return c, nil
}

// start starts `floe args...` with its stderr in dir/name.log.
func (c *procCluster) start(bin, name string, stdout io.Writer, args ...string) (*exec.Cmd, error) {
	log, err := os.Create(filepath.Join(c.dir, name+".log"))
	if err != nil {
		return nil, err
	}
	defer log.Close() // the child has its own descriptor
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = stdout, log
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting floe %s: %w", args[0], err)
	}
	c.procs = append(c.procs, cmd)
	return cmd, nil
}

func (c *procCluster) awaitTaskManagers(ctx context.Context, n int) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		var resp struct {
			TaskManagers []api.TaskManagerStatus `json:"taskManagers"`
		}
		err := c.get(ctx, "/v1/taskmanagers", &resp)
		if err == nil && len(resp.TaskManagers) >= n {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of %d task managers registered within 30s (%v); logs in %s", len(resp.TaskManagers), n, err, c.dir)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// submit uploads a job spec without modules, as docs/rest.md shows, and
// returns the job's id.
func (c *procCluster) submit(ctx context.Context, spec []byte, parallelism int) (string, error) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("spec", string(spec))
	mw.WriteField("parallelism", strconv.Itoa(parallelism))
	if err := mw.Close(); err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.rest+"/v1/jobs", &body)
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	var resp struct {
		ID string `json:"id"`
	}
	if err := c.do(req, http.StatusCreated, &resp); err != nil {
		return "", fmt.Errorf("submitting: %w", err)
	}
	return resp.ID, nil
}

// Job implements jobGetter over GET /v1/jobs/{id}.
func (c *procCluster) Job(ctx context.Context, id string) (api.JobStatus, error) {
	var st api.JobStatus
	err := c.get(ctx, "/v1/jobs/"+id, &st)
	return st, err
}

func (c *procCluster) get(ctx context.Context, path string, into any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.rest+path, nil)
	if err != nil {
		return err
	}
	return c.do(req, http.StatusOK, into)
}

// do sends req and decodes a JSON answer of status want into into.
func (c *procCluster) do(req *http.Request, want int, into any) error {
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: %s: %s", req.Method, req.URL.Path, resp.Status, bytes.TrimSpace(b))
	}
	return json.Unmarshal(b, into)
}

// stop stops the task managers, then the scheduler, with SIGTERM, and
// kills any that has not exited after 10 s.
func (c *procCluster) stop() error {
	var errs []error
	for i := len(c.procs) - 1; i >= 0; i-- {
		errs = append(errs, stopProcess(c.procs[i]))
	}
	return errors.Join(errs...)
}

func stopProcess(cmd *exec.Cmd) error {
	cmd.Process.Signal(syscall.SIGTERM)
	timer := time.AfterFunc(10*time.Second, func() { cmd.Process.Kill() })
	defer timer.Stop()
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("floe %s: %w", cmd.Args[1], err)
	}
	return nil
}

// lineCatcher is an io.Writer that keeps the first line written to it and
// discards everything after. One goroutine writes to it (exec's copier).
type lineCatcher struct {
	buf  []byte
	done bool
	line chan string
}

func newLineCatcher() *lineCatcher { return &lineCatcher{line: make(chan string, 1)} }

func (l *lineCatcher) Write(p []byte) (int, error) {
	if l.done {
		return len(p), nil
	}
	if i := bytes.IndexByte(p, '\n'); i >= 0 {
		l.done = true
		l.line <- string(append(l.buf, p[:i]...))
		return len(p), nil
	}
	l.buf = append(l.buf, p...)
	return len(p), nil
}

// wait returns the first line, or fails after timeout.
func (l *lineCatcher) wait(timeout time.Duration, cmd *exec.Cmd) (string, error) {
	select {
	case s := <-l.line:
		return s, nil
	case <-time.After(timeout):
		return "", fmt.Errorf("floe %s printed no line within %s", cmd.Args[1], timeout)
	}
}
