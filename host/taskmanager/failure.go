package taskmanager

import (
	"errors"

	"github.com/floe-stream/floe/host/udf"
	floev1 "github.com/floe-stream/floe/proto/floe/v1"
)

// failureOf returns where a task's failure arose, for the scheduler's list
// of the job's exceptions: the operator, module and function when it
// arose in an operator's module, and the record being processed, with its
// key, when it is tied to one. It returns nil for any other failure.
func failureOf(err error) *floev1.Failure {
	var ue *udf.UDFError
	if !errors.As(err, &ue) {
		return nil
	}
	f := &floev1.Failure{Operator: ue.Operator, Module: ue.Module, Function: ue.Function}
	if ue.Record >= 0 {
		f.HasRecord = true
		f.Key, f.KeySize = ue.Key, int32(ue.KeySize)
		f.Value, f.ValueSize = ue.Value, int32(ue.Size)
	}
	return f
}
