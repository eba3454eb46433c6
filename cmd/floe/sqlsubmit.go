package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/sqlc"
	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client"
)

// submitSQL sends the script at path to the scheduler at server, which
// compiles it and submits its job (POST /v1/sql), and prints the job's id.
func submitSQL(server, token, path string, f *runFlags, stdout, stderr io.Writer) int {
	if path == "" {
		fmt.Fprintln(stderr, "floe sql: missing -f JOB.sql")
		return 2
	}
	src, err := readScript(path)
	if err != nil {
		fmt.Fprintf(stderr, "floe sql: %v\n", err)
		return 2
	}
	set, err := jobspec.ParseSet(f.set)
	if err != nil {
		fmt.Fprintf(stderr, "floe sql: %v\n", err)
		return 2
	}
	j := &jobCLI{server: server, token: token, tls: &clientTLSFlags{ca: f.tls.ca, cert: f.tls.cert, key: f.tls.key}}
	if err := j.checkServer(); err != nil {
		fmt.Fprintf(stderr, "floe sql: %v\n", err)
		return 2
	}
	c, err := j.client()
	if err != nil {
		fmt.Fprintf(stderr, "floe sql: %v\n", err)
		return 2
	}
	name := "sql"
	if path != "-" {
		name = jobName(path)
	}
	id, err := c.SubmitSQL(context.Background(), client.SQLSubmission{SQL: string(src), Name: name, Set: set, Parallelism: f.parallelism})
	if err != nil {
		fmt.Fprintf(stderr, "floe sql: %s: %v\n", path, err)
		return 1
	}
	fmt.Fprintln(stdout, id)
	return 0
}

// readScript reads the script at path, "-" for standard input.
func readScript(path string) ([]byte, error) {
	if path == "-" {
		return io.ReadAll(os.Stdin)
	}
	return os.ReadFile(path)
}

// locatingService is a Service whose refused submissions' errors locate
// rewrites.
type locatingService struct {
	api.Service
	locate func(error) error
}

// Submit implements api.Service.
func (s locatingService) Submit(ctx context.Context, sub api.Submission) (string, error) {
	id, err := s.Service.Submit(ctx, sub)
	if err != nil {
		err = s.locate(err)
	}
	return id, err
}

// locateSubmission points the spec problems of a refused submission of a
// compiled script (a function its module lacks) at the script; other
// errors stay as they are.
func locateSubmission(path string, job *sqlc.Job, err error) error {
	var fe *jobspec.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	var multi interface{ Unwrap() []error }
	if errors.As(err, &multi) {
		for _, e := range multi.Unwrap() {
			if errors.As(e, &fe) {
				return fmt.Errorf("%s: %w", path, job.Locate(e))
			}
		}
	}
	return fmt.Errorf("%s: %w", path, job.Locate(err))
}
