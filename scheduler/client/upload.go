package client

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"mime/multipart"
	"os"
	"slices"
	"strconv"
	"time"

	_ "github.com/floe-stream/floe/host/connector/builtin" // the connectors that specs name
	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/scheduler/api"
)

// reserved are the form fields of an upload that are not modules.
var reserved = []string{"spec", "set", "parallelism", "checkpointInterval", "fromSavepoint", "allowNonRestoredState",
	"waitForSlots", "moduleDigest"}

// SubmitOptions are what SubmitFiles sends besides the spec and its modules.
// The zero value submits the spec as written.
type SubmitOptions struct {
	// Set holds the job's parameters, as --set gives them; nil sets none.
	Set map[string]string
	// Parallelism, if not 0, overrides the spec's default parallelism.
	Parallelism int
	// CheckpointInterval, if not 0, turns checkpoints on at this interval or
	// changes the spec's.
	CheckpointInterval time.Duration
	// FromSavepoint, if not empty, is the URL of a savepoint (the directory
	// holding its _metadata) for the job to start from; its state goes to
	// the job's sources, operators and sinks by uid (docs/savepoints.md).
	FromSavepoint string
	// AllowNonRestoredState accepts a savepoint that holds state for uids
	// the job no longer has; that state is dropped. Without it, such a
	// savepoint is refused.
	AllowNonRestoredState bool
	// WaitForSlots accepts the job even if it needs more slots than the
	// cluster's task managers have in all; it waits for more to register.
	WaitForSlots bool
}

// SubmitFiles uploads the job whose spec is the file at specPath, as
// `floe job submit` does. It reads the spec with opts.Set as its --set
// values to find the modules it declares, resolving their paths against the
// spec's directory, and uploads the spec as written with each module file
// under its module name. An invalid spec or a missing module file is
// reported before anything is sent, with errors that name the file, and so
// is a checkpoint interval that the scheduler would refuse.
//
// Modules are not uploaded with the job but on their own, and only those
// the scheduler lacks: for each module file SubmitFiles asks the scheduler
// for its digest (HEAD /v1/modules/{digest}), pushes it when missing (POST
// /v1/modules), and submits the job with the digests instead of the bytes.
// A job submitted again, or another job of the same modules, uploads none.
func (c *Client) SubmitFiles(ctx context.Context, specPath string, opts SubmitOptions) (string, error) {
	s, err := readSubmission(specPath, opts)
	if err != nil {
		return "", err
	}
	if _, err := c.pushMissing(ctx, &s); err != nil {
		return "", err
	}
	return c.Submit(ctx, s)
}

// readSubmission reads a job's spec and module files into a Submission.
func readSubmission(specPath string, opts SubmitOptions) (api.Submission, error) {
	job, err := jobspec.Load(specPath, opts.Set)
	if err != nil {
		return api.Submission{}, err
	}
	if opts.CheckpointInterval != 0 {
		// NB: the scheduler checks the interval the same way; checking it
		// here too reports a bad one before the modules are uploaded.
		if err := job.WithCheckpointInterval(opts.CheckpointInterval); err != nil {
			return api.Submission{}, err
		}
	}
	spec, err := os.ReadFile(specPath)
	if err != nil {
		return api.Submission{}, fmt.Errorf("read job spec: %w", err)
	}
	s := api.Submission{Spec: spec, Params: opts.Set, Parallelism: opts.Parallelism,
		CheckpointInterval: opts.CheckpointInterval, FromSavepoint: opts.FromSavepoint,
		AllowNonRestoredState: opts.AllowNonRestoredState, WaitForSlots: opts.WaitForSlots, Modules: make(map[string][]byte)}
	for _, name := range slices.Sorted(maps.Keys(job.Modules)) {
		if _, ok := job.ModuleRefs[name]; ok {
			continue // named by digest: the scheduler has it
		}
		if s.Modules[name], err = os.ReadFile(job.Modules[name]); err != nil {
			return api.Submission{}, fmt.Errorf("module %q: %w", name, err)
		}
	}
	return s, nil
}

// encodeSubmission writes s as the multipart/form-data body that the
// scheduler expects, returning the body and its content type.
func encodeSubmission(s api.Submission) ([]byte, string, error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if err := writeFile(w, "spec", "job.yaml", s.Spec); err != nil {
		return nil, "", err
	}
	for _, k := range slices.Sorted(maps.Keys(s.Params)) {
		if err := w.WriteField("set", k+"="+s.Params[k]); err != nil {
			return nil, "", err
		}
	}
	if s.Parallelism != 0 {
		if err := w.WriteField("parallelism", strconv.Itoa(s.Parallelism)); err != nil {
			return nil, "", err
		}
	}
	if s.CheckpointInterval != 0 {
		if err := w.WriteField("checkpointInterval", s.CheckpointInterval.String()); err != nil {
			return nil, "", err
		}
	}
	if err := writeOptions(w, s); err != nil {
		return nil, "", err
	}
	if err := writeModules(w, s.Modules); err != nil {
		return nil, "", err
	}
	for _, name := range slices.Sorted(maps.Keys(s.Digests)) {
		if err := w.WriteField("moduleDigest", name+"=sha256:"+s.Digests[name]); err != nil {
			return nil, "", err
		}
	}
	if err := w.Close(); err != nil {
		return nil, "", err
	}
	return buf.Bytes(), w.FormDataContentType(), nil
}

// writeOptions writes the fields of a start from a savepoint and the wait
// for slots, those that are set.
func writeOptions(w *multipart.Writer, s api.Submission) error {
	if s.FromSavepoint != "" {
		if err := w.WriteField("fromSavepoint", s.FromSavepoint); err != nil {
			return err
		}
	}
	if s.AllowNonRestoredState {
		if err := w.WriteField("allowNonRestoredState", "true"); err != nil {
			return err
		}
	}
	if s.WaitForSlots {
		return w.WriteField("waitForSlots", "true")
	}
	return nil
}

func writeModules(w *multipart.Writer, modules map[string][]byte) error {
	for _, name := range slices.Sorted(maps.Keys(modules)) {
		if slices.Contains(reserved, name) {
			return fmt.Errorf("%w: module %q: the name is reserved for a form field of the upload; rename the module",
				api.ErrBadRequest, name)
		}
		if err := writeFile(w, name, name+".wasm", modules[name]); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(w *multipart.Writer, field, filename string, data []byte) error {
	part, err := w.CreateFormFile(field, filename)
	if err == nil {
		_, err = part.Write(data)
	}
	return err
}

// DefaultPoll is Wait's polling interval when it is given none.
const DefaultPoll = time.Second

// Wait polls job id every poll (DefaultPoll if poll <= 0) until its state is
// terminal, and returns its last status. It returns early, with the last
// status seen, at the first error of a poll or when ctx ends. A FAILED or
// CANCELED job is not an error: check the state.
func (c *Client) Wait(ctx context.Context, id string, poll time.Duration) (api.JobStatus, error) {
	if poll <= 0 {
		poll = DefaultPoll
	}
	tick := time.NewTicker(poll)
	defer tick.Stop()
	var last api.JobStatus
	for {
		job, err := c.Job(ctx, id)
		if err != nil {
			return last, err
		}
		if last = job; api.Terminal(job.State) {
			return job, nil
		}
		select {
		case <-ctx.Done():
			return last, ctx.Err()
		case <-tick.C:
		}
	}
}
