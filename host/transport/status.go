package transport

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Why a Transfer stream is refused or fails, besides the exported errors.
var (
	errProtocol      = errors.New("transport: protocol violation")
	errNoCredit      = errors.New("transport: protocol violation: batch sent without credit")
	errSenderRange   = errors.New("transport: sender out of range")
	errDuplicate     = errors.New("transport: channel already open")
	errNotRegistered = errors.New("transport: receiving task not deployed")
)

// statusCodes maps the errors of a channel to the status of its stream;
// the first match wins.
var statusCodes = []struct {
	err  error
	code codes.Code
}{
	{errNoCredit, codes.FailedPrecondition},
	{errProtocol, codes.InvalidArgument},
	{errSenderRange, codes.InvalidArgument},
	{errDuplicate, codes.AlreadyExists},
	{errNotRegistered, codes.NotFound},
	{ErrReleased, codes.Aborted},
	{ErrClosed, codes.Unavailable},
	{context.Canceled, codes.Canceled},
	{context.DeadlineExceeded, codes.DeadlineExceeded},
}

// toStatus returns err as a gRPC status error; nil stays nil.
func toStatus(err error) error {
	if err == nil {
		return nil
	}
	for _, m := range statusCodes {
		if errors.Is(err, m.err) {
			return status.Error(m.code, err.Error())
		}
	}
	if s, ok := status.FromError(err); ok {
		return status.Error(s.Code(), err.Error())
	}
	return status.Error(codes.Internal, err.Error())
}
