package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client"
	"github.com/spf13/cobra"
)

// stateLong explains floe state; cobra lists its commands.
const stateLong = `Reads the queryable state of a job through the scheduler's REST API: the
keyed value state that its operators declared with floe.Queryable()
(docs/queryable-state.md).

Every command takes --server URL, the scheduler's REST address, or a
comma-separated list of a scheduler group's, of which the first that answers
is used; the default is $FLOE_SERVER, or http://127.0.0.1:8081 if that is
unset. An https:// scheduler's certificate is checked against the CA in
--tls-ca FILE, default $FLOE_TLS_CA. A scheduler that checks tokens needs
--token TOKEN, or better $FLOE_TOKEN (docs/security.md).

Exit codes: 0 every key was found; 1 a key was not found, or the scheduler
refused the request or cannot be reached; 2 bad command line; 130
interrupted.`

// stateCommand builds floe state and its subcommands.
func stateCommand(stdout, stderr io.Writer) *cobra.Command {
	g := groupCommand("state", "read keys of a job's queryable state", stateLong)
	addCommands(g, map[string]string{"get": "print the value of each key"}, stateGetCmd(stdout, stderr))
	return g
}

// stateCLI is a floe state command. It shares the --server flag and its
// checks with the floe job commands, and has its own usage, messages and
// exit codes.
type stateCLI struct {
	*jobCLI
}

func newStateCLI(name, synopsis, about string, stdout, stderr io.Writer) *stateCLI {
	return &stateCLI{newGroupCLI("state", name, synopsis, about, stdout, stderr)}
}

// command finishes s's command, which takes any number of keys.
func (s *stateCLI) command(body func(keys []string) int) *cobra.Command {
	s.cmd.Args = cobra.ArbitraryArgs
	return s.finish(body)
}

func stateGetCmd(stdout, stderr io.Writer) *cobra.Command {
	s := newStateCLI("get", "--job ID --state NAME KEY... [-o json|text] [flags]",
		"Prints the value of each KEY in the queryable state NAME of job ID, as\n"+
			"KEY<TAB>VALUE lines in the order of the keys: an int64 as a number, a string\n"+
			"as it is, json as compact JSON, bytes as base64, and KEY<TAB>(not found) for a\n"+
			"key the state does not hold. A key or string value with control characters\n"+
			"or invalid UTF-8 is printed quoted, Go-style. -o json prints the values as\n"+
			"the REST API's batchGet returns them. Put -- before keys that start with -.\n\n"+
			"While the state is moving (a restart or rescale: 503) the query is retried\n"+
			"--retries times, waiting --retry-wait, then twice as long each time.\n\n"+
			"Exits 0 if every key was found, 1 if a key was not found (after printing\n"+
			"every value) or the query failed, 2 for a bad command line.\n", stdout, stderr)
	job := s.fs.String("job", "", "`ID` of the job")
	state := s.fs.String("state", "", "`NAME` of the queryable state")
	output := s.fs.StringP("output", "o", "text", "output `format`: text or json")
	var retry retryPolicy
	s.fs.IntVar(&retry.retries, "retries", 4, "how often to retry while the state is moving (503); 0 never retries")
	s.fs.DurationVar(&retry.wait, "retry-wait", 0,
		"first wait before a retry, doubled each time; 0 takes the scheduler's Retry-After, or 1s")
	return s.command(func(keys []string) int {
		if err := checkGetFlags(*job, *state, keys, *output, retry); err != nil {
			return s.usageError(err)
		}
		return s.run(func(ctx context.Context, c *client.Client) error {
			return getState(ctx, c, *job, *state, keys, *output, retry, stdout)
		})
	})
}

// checkGetFlags reports what is missing or wrong on a floe state get
// command line.
func checkGetFlags(job, state string, keys []string, output string, retry retryPolicy) error {
	switch {
	case job == "":
		return errors.New("missing --job ID")
	case state == "":
		return errors.New("missing --state NAME")
	case len(keys) == 0:
		return errors.New("missing KEY")
	case retry.retries < 0:
		return fmt.Errorf("--retries %d: want 0 or more", retry.retries)
	case retry.wait < 0:
		return fmt.Errorf("--retry-wait %v: want a duration > 0, or 0 for the scheduler's", retry.wait)
	}
	return checkOutput(output)
}

// getState queries keys, prints their values and returns an error if a key
// was not found.
func getState(ctx context.Context, c *client.Client, job, state string, keys []string, output string,
	retry retryPolicy, stdout io.Writer) error {
	ks := make([][]byte, len(keys))
	for i, k := range keys {
		ks[i] = []byte(k)
	}
	vals, err := retry.query(ctx, c, job, state, ks)
	if err != nil {
		return err
	}
	if output == "json" {
		err = printJSON(stdout, struct {
			Values []api.StateValue `json:"values"`
		}{vals})
	} else {
		err = printValues(stdout, vals)
	}
	if err != nil {
		return err
	}
	missing := 0
	for _, v := range vals {
		if !v.Found {
			missing++
		}
	}
	if missing > 0 {
		return fmt.Errorf("%d of %d keys not found", missing, len(vals))
	}
	return nil
}

// retryPolicy is how floe state retries a query while the state is moving.
type retryPolicy struct {
	// retries is how many times to retry after the first attempt.
	retries int
	// wait is the first wait, doubled after each retry; 0 takes the
	// scheduler's Retry-After, or 1s without one.
	wait time.Duration
}

// query asks for keys, retrying while the error wraps api.ErrUnavailable.
func (p retryPolicy) query(ctx context.Context, c *client.Client, job, state string, keys [][]byte) ([]api.StateValue, error) {
	wait := p.wait
	for attempt := 0; ; attempt++ {
		vals, err := c.QueryState(ctx, job, state, keys)
		switch {
		case !errors.Is(err, api.ErrUnavailable):
			return vals, err
		case attempt == p.retries && p.retries > 0:
			return nil, fmt.Errorf("%w (gave up after %d retries)", err, p.retries)
		case attempt == p.retries:
			return nil, err
		}
		if wait == 0 {
			wait = firstWait(err)
		}
		if err := sleep(ctx, wait); err != nil {
			return nil, err
		}
		wait *= 2
	}
}

// firstWait is the scheduler's Retry-After for err, or 1s.
func firstWait(err error) time.Duration {
	var e *client.Error
	if errors.As(err, &e) && e.RetryAfter > 0 {
		return e.RetryAfter
	}
	return time.Second
}

// sleep waits for d, or returns ctx's error if it ends first.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// printValues writes one KEY<TAB>VALUE line per value.
func printValues(w io.Writer, vals []api.StateValue) error {
	var buf bytes.Buffer
	for _, v := range vals {
		fmt.Fprintf(&buf, "%s\t%s\n", printable(v.Key), formatValue(v))
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// formatValue writes a value as floe state get prints it.
func formatValue(v api.StateValue) string {
	if !v.Found {
		return "(not found)"
	}
	switch x := v.Value.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case json.RawMessage:
		var buf bytes.Buffer
		if json.Compact(&buf, x) == nil {
			return buf.String()
		}
		return string(x)
	case string:
		return printable(x)
	}
	return fmt.Sprint(v.Value)
}

// printable returns s, or s quoted if it would break a KEY<TAB>VALUE line
// or a terminal: control characters, or bytes that are not UTF-8.
func printable(s string) string {
	if !utf8.ValidString(s) || strings.ContainsFunc(s, unicode.IsControl) {
		return strconv.Quote(s)
	}
	return s
}
