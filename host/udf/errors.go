package udf

import (
	"errors"
	"fmt"

	"github.com/floe-stream/floe/host/record"
)

// ErrTimeout is wrapped by the UDFError of a call that did not return within
// its deadline.
var ErrTimeout = errors.New("did not return in time and was stopped")

// ErrOutputTooLarge is wrapped by the UDFError of a call stopped because it
// emitted more than the cap on output per call (Config.MaxCallOutput).
var ErrOutputTooLarge = errors.New("output over the cap")

// ErrRecordTooLarge is wrapped by the UDFError of a call that was handed or
// emitted a record over the cap per record (Config.MaxRecordSize).
var ErrRecordTooLarge = errors.New("record over the cap")

// ErrBadModule is wrapped by every error about a module that cannot be run:
// not Wasm, a missing or mistyped export, an unknown import or ABI version.
var ErrBadModule = errors.New("bad module")

// UDFError is the failure of a call into an operator's module.
type UDFError struct {
	Module   string // the module's name in the job spec
	Function string // the function the operator runs
	Operator string // the operator's uid, when the task gave it
	Export   string // the export that failed, e.g. floe_process
	// Record is the index of the input record being processed in its batch,
	// or -1 when the failure is not tied to a record.
	Record int
	// Value holds the first bytes of that record (record.Excerpt), and
	// Size its length.
	Value []byte
	Size  int
	// Key holds the first bytes of that record's key (empty for a record
	// without one), and KeySize its length.
	Key     []byte
	KeySize int
	// Stderr is the tail of what the guest wrote to stderr.
	Stderr string
	Err    error
}

func (e *UDFError) Error() string {
	s := fmt.Sprintf("module %q function %q: %v", e.Module, e.Function, e.Err)
	if e.Record >= 0 {
		s += fmt.Sprintf(" (record %d: %s)", e.Record, record.QuoteExcerpt(e.Value, e.Size))
	}
	if e.Stderr != "" {
		s += "\nguest stderr: " + e.Stderr
	}
	return s
}

func (e *UDFError) Unwrap() error { return e.Err }

// prefix returns a copy of the excerpt of b that an error quotes, and the
// length of b.
func prefix(b []byte) ([]byte, int) {
	return append([]byte(nil), record.Excerpt(b)...), len(b)
}

// badModule builds an error about a module that cannot be run.
func badModule(name, format string, args ...any) error {
	return fmt.Errorf("%w %q: %s", ErrBadModule, name, fmt.Sprintf(format, args...))
}

// head keeps the first bytes the guest writes to stderr during one call:
// a Go or C runtime that crashes says why first and dumps stacks after.
type head struct {
	buf []byte
	max int
}

func (h *head) Write(p []byte) (int, error) {
	if room := h.max - len(h.buf); room > 0 {
		h.buf = append(h.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (h *head) reset() { h.buf = h.buf[:0] }

func (h *head) String() string { return string(h.buf) }
