package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client"
)

// groupCluster is a group of `floe scheduler` processes over Raft and
// `floe taskmanager` processes given every scheduler's address, on
// loopback, with the schedulers' default heartbeat and election timeouts.
// The task managers' stdout, where stdout sinks write, goes to one
// io.Writer.
type groupCluster struct {
	*procCluster
	bin     string
	members []*groupMember
	// client follows the leader through every member's REST address.
	client *client.Client
}

// groupMember is one scheduler of the group.
type groupMember struct {
	name            string
	rest, rpc, raft string
	args            []string
	cmd             *exec.Cmd // nil while it is down
	starts          int
}

// startGroupCluster starts schedulers schedulers as one group and tms task
// managers of slots slots each, with their data and logs under dir, and
// waits until one scheduler leads and every task manager has registered.
func startGroupCluster(ctx context.Context, bin, dir string, schedulers, tms, slots int, stdout io.Writer) (*groupCluster, error) {
	addrs, err := freeAddrs(3 * schedulers)
	if err != nil {
		return nil, err
	}
	c := &groupCluster{procCluster: &procCluster{dir: dir, http: &http.Client{Timeout: 30 * time.Second}}, bin: bin}
	var peers, rests, rpcs []string
	for i := range schedulers {
		m := &groupMember{name: fmt.Sprintf("scheduler-%d", i+1), rest: addrs[3*i], rpc: addrs[3*i+1], raft: addrs[3*i+2]}
		c.members = append(c.members, m)
		peers, rests, rpcs = append(peers, m.raft), append(rests, "http://"+m.rest), append(rpcs, m.rpc)
	}
	c.client = client.New(strings.Join(rests, ","), c.http)
	for _, m := range c.members {
		m.args = []string{"scheduler", "--rest-addr", m.rest, "--rpc-addr", m.rpc, "--data-dir", filepath.Join(dir, m.name),
			"--ha-addr", m.raft, "--ha-peers", strings.Join(peers, ","), "--log-level", "warn"}
		if err := c.startMember(m); err != nil {
			return nil, errors.Join(err, c.stop())
		}
	}
	if _, err := c.leader(ctx, nil); err != nil {
		return nil, errors.Join(err, c.stop())
	}
	for i := range tms {
		name := fmt.Sprintf("taskmanager-%d", i)
		if _, err := c.start(bin, name, stdout, "taskmanager", "--scheduler", strings.Join(rpcs, ","), "--slots", strconv.Itoa(slots),
			"--data-dir", filepath.Join(dir, name), "--log-level", "warn"); err != nil {
			return nil, errors.Join(err, c.stop())
		}
	}
	if err := c.awaitTaskManagers(ctx, tms); err != nil {
		return nil, errors.Join(err, c.stop())
	}
	return c, nil
}

// freeAddrs returns n distinct loopback addresses whose ports were free a
// moment ago.
func freeAddrs(n int) ([]string, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var addrs []string
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		addrs = append(addrs, l.Addr().String())
	}
	return addrs, nil
}

// startMember starts member m, with its data directory as it was left,
// and waits until it serves REST. Its log is dir/NAME.log, NAME-2.log
// from its second start on.
func (c *groupCluster) startMember(m *groupMember) error {
	m.starts++
	name := m.name
	if m.starts > 1 {
		name += "-" + strconv.Itoa(m.starts)
	}
	cmd, err := c.start(c.bin, name, nil, m.args...)
	if err != nil {
		return err
	}
	m.cmd = cmd
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := c.http.Get("http://" + m.rest + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s does not serve REST after 30s (%v); log in %s", m.name, err, c.dir)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// kill SIGKILLs member m, as a crash would, and reaps it.
func (c *groupCluster) kill(m *groupMember) {
	m.cmd.Process.Kill()
	m.cmd.Wait()
	c.procs = slices.DeleteFunc(c.procs, func(p *exec.Cmd) bool { return p == m.cmd })
	m.cmd = nil
}

// leader waits until a member other than not leads and returns it.
func (c *groupCluster) leader(ctx context.Context, not *groupMember) (*groupMember, error) {
	deadline := time.Now().Add(time.Minute)
	for {
		st, err := c.client.Cluster(ctx)
		if err == nil {
			for _, m := range c.members {
				if m != not && m.cmd != nil && m.raft == st.Leader {
					return m, nil
				}
			}
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("no scheduler leads after a minute (%v); logs in %s", err, c.dir)
		}
		time.Sleep(jobPoll)
	}
}

// applied returns the index of the log member m, asked itself, has
// applied, and the leader it knows.
func (c *groupCluster) applied(ctx context.Context, m *groupMember) (uint64, string, error) {
	st, err := client.New("http://"+m.rest, c.http).Cluster(ctx)
	if err != nil {
		return 0, "", err
	}
	for _, mb := range st.Members {
		if mb.RaftAddr == m.raft {
			return mb.Applied, st.Leader, nil
		}
	}
	return 0, "", fmt.Errorf("%s does not list itself", m.name)
}

// awaitCaughtUp waits until member m knows lead as the leader and has
// applied what lead had applied when the wait began.
func (c *groupCluster) awaitCaughtUp(ctx context.Context, m, lead *groupMember) error {
	want, _, err := c.applied(ctx, lead)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(time.Minute)
	for {
		got, leader, err := c.applied(ctx, m)
		if err == nil && leader == lead.raft && got >= want {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s has applied %d of %s's %d after a minute (%v); logs in %s", m.name, got, lead.name, want, err, c.dir)
		}
		time.Sleep(jobPoll)
	}
}

// Job implements jobGetter through whichever scheduler answers.
func (c *groupCluster) Job(ctx context.Context, id string) (api.JobStatus, error) {
	return c.client.Job(ctx, id)
}

// awaitTaskManagers waits until the leader lists n task managers.
func (c *groupCluster) awaitTaskManagers(ctx context.Context, n int) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		tms, err := c.client.TaskManagers(ctx)
		if err == nil && len(tms) >= n {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of %d task managers registered within 30s (%v); logs in %s", len(tms), n, err, c.dir)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (c *groupCluster) close() error { return errors.Join(c.stop(), os.RemoveAll(c.dir)) }
