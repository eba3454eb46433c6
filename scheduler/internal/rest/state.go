package rest

import (
	"encoding/base64"
	"fmt"
	"io"
	"net/http"

	"github.com/floe-stream/floe/scheduler/api"
)

// keyNotFound is the message of the 404 of GET .../state/{name}/{key} for a
// key that the state does not hold.
const keyNotFound = "key not found"

// absentKey is the body of that 404: the error every error response has,
// and the StateValue with found false, which tells it apart from the 404 of
// an unknown job or state.
type absentKey struct {
	Error string `json:"error"`
	api.StateValue
}

// stateGet reads one key of a queryable state. The key is one path segment,
// percent-decoded, so a "/" in it comes as %2F.
func (h *handler) stateGet(r *http.Request) (int, any, error) {
	key := r.PathValue("key")
	vals, err := h.svc.QueryState(r.Context(), r.PathValue("id"), r.PathValue("name"), [][]byte{[]byte(key)})
	switch {
	case err != nil:
		return 0, nil, err
	case len(vals) != 1:
		return 0, nil, fmt.Errorf("the service answered %d values for 1 key", len(vals))
	case !vals[0].Found:
		return http.StatusNotFound, absentKey{keyNotFound, vals[0]}, nil
	}
	return http.StatusOK, vals[0], nil
}

// batchGetRequest is the body of POST .../state/{name}:batchGet: keys as
// JSON strings, and keys of any bytes in base64. The values answer Keys
// first, then KeysBase64, each in order.
type batchGetRequest struct {
	Keys       []string `json:"keys"`
	KeysBase64 []string `json:"keysBase64"`
}

// values is the body of a 200 response to a batchGet.
type values struct {
	Values []api.StateValue `json:"values"`
}

// stateBatchGet reads several keys of a queryable state at once. A key the
// state does not hold has found false; it is not an error.
func (h *handler) stateBatchGet(r *http.Request) (int, any, error) {
	keys, err := readKeys(r.Body, h.maxBatchKeys)
	if err != nil {
		return 0, nil, err
	}
	vals, err := h.svc.QueryState(r.Context(), r.PathValue("id"), r.PathValue("name"), keys)
	switch {
	case err != nil:
		return 0, nil, err
	case len(vals) != len(keys):
		return 0, nil, fmt.Errorf("the service answered %d values for %d keys", len(vals), len(keys))
	case vals == nil:
		vals = []api.StateValue{}
	}
	return http.StatusOK, values{vals}, nil
}

// keysShape is what a batchGet body looks like, for its 400 errors.
const keysShape = `{"keys": ["..."], "keysBase64": ["..."]}`

// readKeys decodes the body of a batchGet into the keys it asks for, at
// most max of them.
func readKeys(body io.Reader, max int) ([][]byte, error) {
	var req batchGetRequest
	if err := decodeBody(body, &req, keysShape); err != nil {
		return nil, err
	}
	if n := len(req.Keys) + len(req.KeysBase64); n > max {
		return nil, badRequest("a batchGet asks for at most %d keys, this one for %d: split it", max, n)
	}
	keys := make([][]byte, 0, len(req.Keys)+len(req.KeysBase64))
	for _, k := range req.Keys {
		keys = append(keys, []byte(k))
	}
	for i, k := range req.KeysBase64 {
		b, err := base64.StdEncoding.DecodeString(k)
		if err != nil {
			return nil, badRequest("keysBase64[%d] %q: want standard base64: %v", i, k, err)
		}
		keys = append(keys, b)
	}
	return keys, nil
}
