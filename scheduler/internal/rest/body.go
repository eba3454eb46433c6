package rest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/floe-stream/floe/scheduler/api"
)

// decodeBody decodes a JSON body that must be exactly one object of v's
// fields, no others. shape shows what such a body looks like, for the
// message of the 400 that answers any other body.
func decodeBody(body io.Reader, v any, shape string) error {
	return decodeJSON(body, v, shape, false)
}

// decodeOptionalBody is decodeBody for a body that may also be empty, or
// only white space, which leaves v as it is.
func decodeOptionalBody(body io.Reader, v any, shape string) error {
	return decodeJSON(body, v, shape, true)
}

func decodeJSON(body io.Reader, v any, shape string, optional bool) error {
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	switch {
	case optional && errors.Is(err, io.EOF):
		return nil
	case err != nil:
		return bodyError(err, shape)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return badRequest("want one JSON object %s as the body, found more after it", shape)
	}
	return nil
}

// bodyError classifies an error met while decoding a JSON body.
func bodyError(err error, shape string) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return &statusError{api.ErrTooLarge, fmt.Sprintf("body larger than the %s limit (--max-upload)", formatSize(tooBig.Limit))}
	}
	return badRequest("want a JSON object %s as the body: %v", shape, err)
}
