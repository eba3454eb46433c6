package client

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/floe-stream/floe/scheduler/api"
)

// QueryState reads keys of a job's queryable state: one StateValue per key,
// in order, with Found false for a key the state does not hold. Each value's
// Key is its key exactly and its Value is rendered again from Raw, so an
// int64 comes back as an int64 rather than as the float64 of a JSON number.
//
// One non-empty key is read with GET .../state/{name}/{key}, any other
// number of keys with one POST .../state/{name}:batchGet. The error wraps
// api.ErrNotFound (unknown job or state), api.ErrForbidden (the state is not
// queryable), api.ErrConflict (the job has ended and its state is gone) or
// api.ErrUnavailable (the state is moving during a restart or rescale: try
// again after the *Error's RetryAfter).
func (c *Client) QueryState(ctx context.Context, id, state string, keys [][]byte) ([]api.StateValue, error) {
	var vals []api.StateValue
	var err error
	if len(keys) == 1 && len(keys[0]) > 0 {
		var v api.StateValue
		v, err = c.getKey(ctx, id, state, keys[0])
		vals = []api.StateValue{v}
	} else {
		vals, err = c.batchGet(ctx, id, state, keys)
	}
	if err != nil {
		return nil, err
	}
	if len(vals) != len(keys) {
		return nil, fmt.Errorf("query of state %q of job %s: the scheduler answered %d values for %d keys", state, id, len(vals), len(keys))
	}
	for i := range vals {
		vals[i].Key, vals[i].Value = string(keys[i]), nil
		vals[i].Render()
	}
	return vals, nil
}

// GetInt64 reads one key of a job's queryable int64 state, such as a
// counter declared with floe.NewValueState(name, floe.Int64,
// floe.Queryable()). found is false, with no error, for a key the state
// does not hold. Besides QueryState's errors, it fails for a state whose
// values are not int64.
func (c *Client) GetInt64(ctx context.Context, job, state, key string) (n int64, found bool, err error) {
	vals, err := c.QueryState(ctx, job, state, [][]byte{[]byte(key)})
	if err != nil {
		return 0, false, err
	}
	v := vals[0]
	switch {
	case v.Type != "int64" && (v.Found || v.Type != ""):
		return 0, false, fmt.Errorf("state %q of job %s holds %s values, not int64", state, job, v.Type)
	case !v.Found:
		return 0, false, nil
	case len(v.Raw) != 8:
		return 0, false, fmt.Errorf("state %q of job %s: int64 value of key %q has %d bytes, want 8", state, job, key, len(v.Raw))
	}
	return int64(binary.LittleEndian.Uint64(v.Raw)), true, nil
}

// getKey reads one key with GET; a 404 for the key alone is an absent
// value, not an error.
func (c *Client) getKey(ctx context.Context, id, state string, key []byte) (api.StateValue, error) {
	var v api.StateValue
	err := c.do(ctx, request{method: http.MethodGet, path: statePath(id, state) + "/" + escapeSegment(string(key)),
		want: http.StatusOK, out: &v})
	if absent, ok := keyNotFound(err); ok {
		return absent, nil
	}
	return v, err
}

// keyNotFound reports whether err is the 404 of a key that the state does
// not hold, rather than of an unknown job or state, and returns the absent
// value its body describes. The scheduler marks that 404 with "found": false.
func keyNotFound(err error) (api.StateValue, bool) {
	var e *Error
	if !errors.As(err, &e) || e.StatusCode != http.StatusNotFound {
		return api.StateValue{}, false
	}
	var mark struct {
		Found *bool `json:"found"`
	}
	var v api.StateValue
	if json.Unmarshal(e.body, &mark) != nil || mark.Found == nil || *mark.Found || json.Unmarshal(e.body, &v) != nil {
		return api.StateValue{}, false
	}
	return v, true
}

// batchRequest is the body of POST .../state/{name}:batchGet.
type batchRequest struct {
	Keys       []string `json:"keys,omitempty"`
	KeysBase64 []string `json:"keysBase64,omitempty"`
}

// batchGet reads keys with one POST. Keys go as JSON strings, or all as
// base64 if one of them is not UTF-8, which a JSON string cannot carry.
func (c *Client) batchGet(ctx context.Context, id, state string, keys [][]byte) ([]api.StateValue, error) {
	var req batchRequest
	asBase64 := false
	for _, k := range keys {
		asBase64 = asBase64 || !utf8.Valid(k)
	}
	for _, k := range keys {
		if asBase64 {
			req.KeysBase64 = append(req.KeysBase64, base64.StdEncoding.EncodeToString(k))
		} else {
			req.Keys = append(req.Keys, string(k))
		}
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	var out struct {
		Values []api.StateValue `json:"values"`
	}
	err = c.do(ctx, request{method: http.MethodPost, path: statePath(id, state) + ":batchGet", body: body,
		contentType: "application/json", want: http.StatusOK, out: &out})
	return out.Values, err
}

func statePath(id, state string) string {
	return jobPath(id) + "/state/" + escapeSegment(state)
}

// escapeSegment escapes s as one path segment: "/" becomes %2F, and the dots
// of "." and ".." become %2E, which keeps a server from cleaning them away
// as relative path elements.
func escapeSegment(s string) string {
	e := url.PathEscape(s)
	if e == "." || e == ".." {
		e = strings.ReplaceAll(e, ".", "%2E")
	}
	return e
}
