package confine

import (
	"errors"
	"fmt"

	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/storage/ckstore"
)

// FieldError is a path that a field of a job spec or of a request names
// and that the job may not use.
type FieldError struct {
	// Field names the field, from the spec's root (sink.path,
	// checkpoints.storage) or as the request calls it (fromSavepoint).
	Field string
	Err   error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Err.Error() }

// Unwrap returns the error about the path, an *OutsideError say.
func (e *FieldError) Unwrap() error { return e.Err }

// JobPaths returns the local paths job j opens: those of its connectors
// (jobspec.Job.LocalPaths), then the directory of its checkpoint storage
// when that is a file:// URL or a path, as checkpoints.storage, which is
// written. A storage URL that does not parse is left to whoever opens it.
func JobPaths(j *jobspec.Job) []jobspec.LocalPath {
	out := j.LocalPaths()
	if j.Checkpoints != nil && j.Checkpoints.Storage != "" {
		if dir, ok, err := StoreDir(j.Checkpoints.Storage); err == nil && ok {
			out = append(out, jobspec.LocalPath{Field: "checkpoints.storage", Path: dir, Write: true})
		}
	}
	return out
}

// StoreDir returns the local directory that the checkpoint or savepoint
// store URL names (ckstore.ParseURL), and false for a store that is not
// local (s3://).
func StoreDir(url string) (string, bool, error) {
	loc, err := ckstore.ParseURL(url)
	if err != nil {
		return "", false, err
	}
	return loc.Dir, loc.Scheme == "file", nil
}

// CheckJob checks every path of JobPaths(j). Its error joins a
// *FieldError for each path that is outside r or cannot be resolved.
func (r *Roots) CheckJob(j *jobspec.Job) error {
	var errs []error
	for _, p := range JobPaths(j) {
		if _, err := r.Check(p.Path); err != nil {
			errs = append(errs, &FieldError{Field: p.Field, Err: err})
		}
	}
	return errors.Join(errs...)
}

// CheckStore checks the directory of the store URL that field names, when
// the store is local, and returns it resolved ("" for a store that is not
// local). A URL that does not parse is an error here, as a *FieldError.
func (r *Roots) CheckStore(field, url string) (string, error) {
	dir, local, err := StoreDir(url)
	if err == nil && local {
		dir, err = r.Check(dir)
	}
	if oe, ok := err.(*OutsideError); ok {
		oe.Path = url // as the caller wrote it
	}
	if err != nil {
		return "", &FieldError{Field: field, Err: err}
	}
	return dir, nil
}

// WrittenDirs returns, resolved, the directories job j writes through its
// connectors (its file sinks'), by field. Paths that cannot be resolved
// are left out: checking them is CheckJob's work.
func WrittenDirs(j *jobspec.Job) map[string]string {
	out := map[string]string{}
	for _, p := range j.LocalPaths() {
		if !p.Write {
			continue
		}
		if res, err := Resolve(p.Path); err == nil {
			out[p.Field] = res
		}
	}
	return out
}

// String describes r for a log line or a message: its roots, or that it
// restricts nothing.
func (r *Roots) String() string {
	if !r.Restricted() {
		return "unrestricted"
	}
	return fmt.Sprint(r.dirs)
}
