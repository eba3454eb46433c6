package rest

import (
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/scheduler/api"
)

// The form fields of a job upload with a meaning of their own. Every other
// part is a file part holding the Wasm module of the same name, so a module
// cannot be named like one of these.
const (
	fieldSpec               = "spec"
	fieldSet                = "set"
	fieldParallelism        = "parallelism"
	fieldCheckpointInterval = "checkpointInterval"
	fieldFromSavepoint      = "fromSavepoint"
	fieldAllowNonRestored   = "allowNonRestoredState"
	fieldWaitForSlots       = "waitForSlots"
	// fieldModuleDigest, repeated, is NAME=sha256:HEX: module NAME of the
	// spec is the one of that digest, which the scheduler has, and is not
	// uploaded.
	fieldModuleDigest = "moduleDigest"
)

// submitted is the body of a 201 response to a job upload.
type submitted struct {
	ID string `json:"id"`
}

// submit reads a job upload and hands it to the Service.
func (h *handler) submit(r *http.Request) (int, any, error) {
	if r.ContentLength > h.maxUpload {
		return 0, nil, h.tooLarge()
	}
	sub, err := h.readSubmission(r)
	if err != nil {
		return 0, nil, err
	}
	id, err := h.svc.Submit(r.Context(), sub)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, submitted{id}, nil
}

// readSubmission streams the parts of a multipart/form-data body into a
// Submission.
func (h *handler) readSubmission(r *http.Request) (api.Submission, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return api.Submission{}, badRequest("want a multipart/form-data body: %v", err)
	}
	u := upload{modules: make(map[string][]byte)}
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return u.submission()
		}
		if err == nil {
			err = u.add(part)
			part.Close()
		}
		if err != nil {
			return api.Submission{}, h.readError(err)
		}
	}
}

// readError classifies an error met while reading an upload.
func (h *handler) readError(err error) error {
	var tooBig *http.MaxBytesError
	var known *statusError
	switch {
	case errors.As(err, &tooBig):
		return h.tooLarge()
	case errors.As(err, &known):
		return err
	}
	return badRequest("malformed multipart body: %v", err)
}

func (h *handler) tooLarge() error {
	msg := fmt.Sprintf("upload larger than the %s limit (--max-upload)", formatSize(h.maxUpload))
	return &statusError{api.ErrTooLarge, msg}
}

// formatSize writes n bytes in the largest binary unit that divides it.
func formatSize(n int64) string {
	units := []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}}
	for _, u := range units {
		if n%u.size == 0 {
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// upload collects the parts of a job upload.
type upload struct {
	spec        []byte
	sets        []string
	parallelism int
	interval    time.Duration
	savepoint   string
	allowLost   bool
	waitSlots   bool
	seen        map[string]bool
	modules     map[string][]byte
	digests     map[string]string
}

// add reads one part into u.
func (u *upload) add(p *multipart.Part) error {
	name := p.FormName()
	data, err := io.ReadAll(p)
	switch {
	case err != nil:
		return err
	case name == "":
		return badRequest("a part of the upload has no form name")
	case name == fieldSet:
		u.sets = append(u.sets, string(data))
		return nil
	case name == fieldModuleDigest:
		return u.addDigest(string(data))
	case u.seen[name]:
		return badRequest("the upload has more than one %q part", name)
	}
	u.mark(name)
	switch {
	case name == fieldSpec:
		u.spec = data
	case name == fieldParallelism:
		return u.setParallelism(string(data))
	case name == fieldCheckpointInterval:
		return u.setInterval(string(data))
	case name == fieldFromSavepoint:
		u.savepoint = strings.TrimSpace(string(data))
	case name == fieldAllowNonRestored:
		return u.setBool(&u.allowLost, fieldAllowNonRestored, string(data))
	case name == fieldWaitForSlots:
		return u.setBool(&u.waitSlots, fieldWaitForSlots, string(data))
	case p.FileName() == "":
		return badRequest("unknown form field %q: a module must be a file part", name)
	default:
		u.modules[name] = data
	}
	return nil
}

// addDigest reads a moduleDigest field, NAME=sha256:HEX.
func (u *upload) addDigest(s string) error {
	name, d, ok := strings.Cut(strings.TrimSpace(s), "=")
	ref, isRef, err := jobspec.ParseModuleRef(d)
	switch {
	case !ok || name == "" || !isRef || err != nil || ref.Name != "":
		return badRequest("%s %q: want NAME=sha256:HEX, HEX the 64 hex digits of the module's SHA-256", fieldModuleDigest, s)
	case u.digests[name] != "":
		return badRequest("%s: module %q has more than one digest", fieldModuleDigest, name)
	}
	if u.digests == nil {
		u.digests = make(map[string]string)
	}
	u.digests[name] = ref.Digest
	return nil
}

func (u *upload) mark(name string) {
	if u.seen == nil {
		u.seen = make(map[string]bool)
	}
	u.seen[name] = true
}

func (u *upload) setParallelism(s string) error {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 {
		return badRequest("parallelism %q: want an integer >= 1, or 0 for the spec's", s)
	}
	u.parallelism = n
	return nil
}

func (u *upload) setInterval(s string) error {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d < 0 {
		return badRequest("checkpointInterval %q: want a duration such as 10s or 500ms, or 0 for the spec's", s)
	}
	u.interval = d
	return nil
}

// setBool reads a true/false form field into *b.
func (u *upload) setBool(b *bool, field, s string) error {
	v, err := strconv.ParseBool(strings.TrimSpace(s))
	if err != nil {
		return badRequest("%s %q: want true or false", field, s)
	}
	*b = v
	return nil
}

// submission checks that the upload is complete and returns it.
func (u *upload) submission() (api.Submission, error) {
	if !u.seen[fieldSpec] {
		return api.Submission{}, badRequest("the upload has no %q part with the job spec", fieldSpec)
	}
	params, err := jobspec.ParseSet(u.sets)
	if err != nil {
		return api.Submission{}, badRequest("%v", err)
	}
	return api.Submission{Spec: u.spec, Params: params, Parallelism: u.parallelism, Modules: u.modules, Digests: u.digests,
		CheckpointInterval: u.interval, FromSavepoint: u.savepoint, AllowNonRestoredState: u.allowLost,
		WaitForSlots: u.waitSlots}, nil
}
