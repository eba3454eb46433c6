package cluster

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe to read while a process writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// proc is a long-running floe process: the scheduler or a task manager.
type proc struct {
	name           string
	cmd            *exec.Cmd
	stdout, stderr syncBuffer
	// done is closed once the process has exited and been reaped.
	done chan struct{}

	// Set for a task manager once the scheduler lists it.
	id, addr string
}

// startProc starts floe with args; wg tracks the goroutine that reaps it.
func startProc(t *testing.T, wg *sync.WaitGroup, name string, args ...string) *proc {
	t.Helper()
	p := &proc{name: name, cmd: exec.Command(floeBin, args...), done: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+cacheHome)
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		p.cmd.Wait()
		close(p.done)
	}()
	return p
}

// pid returns the process id.
func (p *proc) pid() int { return p.cmd.Process.Pid }

// exited reports whether the process has ended.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// kill ends the process with SIGKILL, as a crash would, and reaps it.
func (p *proc) kill() {
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// stop asks the process to stop with SIGTERM and kills it if it has not
// exited within grace. It reports whether the process stopped by itself,
// with exit code 0.
func (p *proc) stop(grace time.Duration) bool {
	if p.exited() {
		return true // killed by the test, or died, which the test notices
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return p.cmd.ProcessState.ExitCode() == 0
	case <-time.After(grace):
		p.kill()
		return false
	}
}

// rss returns the process's resident set size in bytes, from VmRSS in
// /proc/PID/status.
func (p *proc) rss() (int64, error) { return p.status("VmRSS") }

// peakRSS returns the largest resident set size the process has had, in
// bytes, from VmHWM in /proc/PID/status.
func (p *proc) peakRSS() (int64, error) { return p.status("VmHWM") }

// status returns a field of /proc/PID/status given in kB, in bytes.
func (p *proc) status(field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.pid()))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		v, ok := strings.CutPrefix(line, field+":")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %s %q: %v", p.name, field, v, err)
		}
		return kb << 10, nil
	}
	return 0, fmt.Errorf("%s: no %s in /proc/%d/status", p.name, field, p.pid())
}

// logTail returns the end of the process's stderr, for failure reports.
func (p *proc) logTail() string {
	s := p.stderr.String()
	const max = 12 << 10
	if len(s) > max {
		s = "...\n" + s[len(s)-max:]
	}
	return s
}

// result is a finished short-lived floe command.
type result struct {
	code           int
	stdout, stderr string
}

// runFloe runs floe with args and env added to the environment, and kills
// it if it has not finished within timeout.
func runFloe(t *testing.T, timeout time.Duration, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(floeBin, args...)
	cmd.Env = append(append(os.Environ(), "XDG_CACHE_HOME="+cacheHome), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(timeout, func() { cmd.Process.Kill() })
	cmd.Wait()
	if !timer.Stop() {
		t.Fatalf("floe %s did not finish within %s\nstderr:\n%s", strings.Join(args, " "), timeout, errb.String())
	}
	return result{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errb.String()}
}
