package client

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
)

// Client is a connection to a scheduler, or to the first of a list of
// schedulers that answers. It is safe for concurrent use.
type Client struct {
	bases []string
	// cur indexes the base URL the client sticks to: the last that
	// answered.
	cur atomic.Int32
	hc  *http.Client
	// token, if set, goes with every request as a bearer token.
	token string
}

var _ api.Service = (*Client)(nil)

// New returns a client of the scheduler at baseURL, e.g.
// "http://127.0.0.1:8081", that sends its requests with httpClient, or, if
// httpClient is nil, with a client of its own whose transport is
// http.DefaultTransport's settings but keeps up to 64 idle connections to
// the scheduler: the default 2 would make concurrent callers (a service
// looking up state from many goroutines) dial a new connection per call.
//
// baseURL may be a comma-separated list of the REST addresses of a group of
// schedulers, any of which answers. The client sends each request to the
// scheduler that answered last, the first of the list at the start; when it
// cannot connect, or the scheduler answers 503 Service Unavailable, it tries
// the next, in list order, and sticks to the first that answers. Any other
// answer, an error status included, is the scheduler's answer. NB: a write
// moves on only when no connection could be made, so that it is never sent
// twice; a read moves on after any failure of the connection.
//
// NB: uploads ask for "100-continue", which a transport honours only if its
// ExpectContinueTimeout is set (http.DefaultTransport's is). Without it, an
// upload over the scheduler's limit may fail with a connection reset rather
// than an error wrapping api.ErrTooLarge.
func New(baseURL string, httpClient *http.Client) *Client {
	if httpClient == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = 64
		httpClient = &http.Client{Transport: tr}
	}
	return &Client{bases: splitBases(baseURL), hc: httpClient}
}

// splitBases splits a comma-separated list of base URLs, dropping blanks
// and trailing slashes. It always returns at least one URL.
func splitBases(list string) []string {
	var bases []string
	for b := range strings.SplitSeq(list, ",") {
		if b = strings.TrimRight(strings.TrimSpace(b), "/"); b != "" {
			bases = append(bases, b)
		}
	}
	if len(bases) == 0 {
		return []string{""}
	}
	return bases
}

// BaseURL returns the address of the scheduler the client sends its next
// request to, as New received it, without a trailing slash.
func (c *Client) BaseURL() string { return c.bases[c.cur.Load()] }

// BaseURLs returns every scheduler address New received, in order.
func (c *Client) BaseURLs() []string { return slices.Clone(c.bases) }

// Error is an error response of the scheduler. It wraps the api sentinel
// that matches its status code, if any.
type Error struct {
	// StatusCode is the HTTP status of the response.
	StatusCode int
	// Message is the scheduler's message, or a description of the response
	// if it had none.
	Message string
	// RetryAfter is the wait that the response's Retry-After header asks
	// for, in seconds, or 0 without one. The scheduler sends it with 503.
	RetryAfter time.Duration

	// body is the start of the response body, for callers that read more
	// than the message from an error response.
	body []byte
}

func (e *Error) Error() string { return e.Message }

// Unwrap returns the api sentinel whose status code api.StatusOf maps to
// e.StatusCode, or nil.
func (e *Error) Unwrap() error {
	for _, s := range []error{api.ErrBadRequest, api.ErrNotFound, api.ErrConflict, api.ErrTooLarge,
		api.ErrForbidden, api.ErrUnauthenticated, api.ErrUnavailable} {
		if api.StatusOf(s) == e.StatusCode {
			return s
		}
	}
	return nil
}

// request describes one call of the API.
type request struct {
	method, path string
	// body and contentType are the request body, if any.
	body        []byte
	contentType string
	// want is the status code of success, out what to decode its body into
	// (nil to discard it).
	want int
	out  any
}

// do sends r to the scheduler the client sticks to, or to the next ones
// in turn while they cannot be reached or are unavailable, and decodes the
// response into r.out, or returns its error. When no scheduler answers, the
// error is the last 503 response's, or else the last failure to connect.
func (c *Client) do(ctx context.Context, r request) error {
	start := int(c.cur.Load())
	var err, unavailable error
	for i := range c.bases {
		k := (start + i) % len(c.bases)
		var next bool
		next, err = c.doAt(ctx, c.bases[k], r)
		if !next {
			c.cur.Store(int32(k))
			return err
		}
		if _, ok := err.(*Error); ok {
			unavailable = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return cmp.Or(unavailable, err)
}

// doAt sends r to the scheduler at base. It returns next when the client
// should try the next scheduler instead.
func (c *Client) doAt(ctx context.Context, base string, r request) (next bool, err error) {
	req, err := http.NewRequestWithContext(ctx, r.method, base+r.path, bytes.NewReader(r.body))
	if err != nil {
		return false, err
	}
	if r.body != nil {
		req.Header.Set("Content-Type", r.contentType)
		// NB: with Expect, a transport that supports it sends the body only
		// after the scheduler has accepted the headers, so an oversized
		// upload is refused by its Content-Length with a clean 413 instead
		// of a connection reset half-way through the body.
		req.Header.Set("Expect", "100-continue")
	}
	req.Header.Set("Accept", "application/json")
	c.authorize(req)
	resp, err := c.hc.Do(req)
	if err != nil {
		idempotent := r.method == http.MethodGet || r.method == http.MethodHead
		return ctx.Err() == nil && (IsUnreachable(err) || idempotent), err
	}
	defer resp.Body.Close()
	if resp.StatusCode != r.want {
		return resp.StatusCode == http.StatusServiceUnavailable, responseError(resp)
	}
	return false, decode(resp, r.out)
}

// decode reads a successful response into out, or discards it if out is nil.
func decode(resp *http.Response, out any) error {
	if out == nil {
		_, err := io.Copy(io.Discard, resp.Body)
		return err
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("%s %s: decode response: %w", resp.Request.Method, resp.Request.URL, err)
	}
	return nil
}

// responseError turns an unexpected response into an *Error, using the
// message of the scheduler's {"error": "..."} body if it has one.
func responseError(resp *http.Response) error {
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var body struct {
		Error string `json:"error"`
	}
	msg := fmt.Sprintf("%s %s: %s", resp.Request.Method, resp.Request.URL, resp.Status)
	switch {
	case json.Unmarshal(data, &body) == nil && body.Error != "":
		msg = body.Error
	case len(bytes.TrimSpace(data)) > 0:
		msg += ": " + string(bytes.TrimSpace(data))
	}
	return &Error{StatusCode: resp.StatusCode, Message: msg, RetryAfter: retryAfter(resp.Header), body: data}
}

// retryAfter returns the wait of a Retry-After header in seconds, or 0 if
// it has none or an HTTP date.
func retryAfter(h http.Header) time.Duration {
	n, err := strconv.Atoi(strings.TrimSpace(h.Get("Retry-After")))
	if err != nil || n < 0 {
		return 0
	}
	return time.Duration(n) * time.Second
}

// IsUnreachable reports whether err says that no connection to the
// scheduler could be made: nothing listening, no route or no such host.
func IsUnreachable(err error) bool {
	var dial *net.OpError
	return errors.As(err, &dial) && dial.Op == "dial"
}
