package client

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"

	"github.com/floe-stream/floe/scheduler/api"
)

// PushModule uploads a Wasm module on its own (POST /v1/modules), to be
// named by digest in specs, and returns what the scheduler stored. name may
// be empty. Errors wrap api.ErrBadRequest (invalid Wasm, bad name) or
// api.ErrTooLarge; api.ErrNotFound means the scheduler stores no modules.
func (c *Client) PushModule(ctx context.Context, name string, wasm []byte) (api.ModuleInfo, error) {
	path := "/v1/modules"
	if name != "" {
		path += "?name=" + url.QueryEscape(name)
	}
	var info api.ModuleInfo
	err := c.do(ctx, request{method: http.MethodPost, path: path, body: wasm, contentType: "application/wasm",
		want: http.StatusCreated, out: &info})
	return info, err
}

// Modules lists the modules the scheduler stores, by name and digest.
func (c *Client) Modules(ctx context.Context) ([]api.ModuleInfo, error) {
	var out struct {
		Modules []api.ModuleInfo `json:"modules"`
	}
	err := c.do(ctx, request{method: http.MethodGet, path: "/v1/modules", want: http.StatusOK, out: &out})
	return out.Modules, err
}

// Module describes one stored module: the error wraps api.ErrNotFound for
// a digest the scheduler lacks, api.ErrBadRequest for a malformed one.
func (c *Client) Module(ctx context.Context, digest string) (api.ModuleInfo, error) {
	var info api.ModuleInfo
	err := c.do(ctx, request{method: http.MethodGet, path: modulePath(digest), want: http.StatusOK, out: &info})
	return info, err
}

// HasModule asks whether the scheduler has the module of a digest
// (HEAD /v1/modules/{digest}). A scheduler that stores no modules has none.
func (c *Client) HasModule(ctx context.Context, digest string) (bool, error) {
	err := c.do(ctx, request{method: http.MethodHead, path: modulePath(digest), want: http.StatusOK})
	if errors.Is(err, api.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// DeleteModule deletes a stored module: the error wraps api.ErrNotFound as
// Module does, api.ErrConflict while a job that has not ended runs it.
func (c *Client) DeleteModule(ctx context.Context, digest string) error {
	return c.do(ctx, request{method: http.MethodDelete, path: modulePath(digest), want: http.StatusNoContent})
}

func modulePath(digest string) string { return "/v1/modules/" + url.PathEscape(digest) }

// Digest returns the hex SHA-256 of a module's bytes: the digest the
// scheduler stores it by.
func Digest(wasm []byte) string {
	sum := sha256.Sum256(wasm)
	return hex.EncodeToString(sum[:])
}

// pushMissing moves each module of s from s.Modules to s.Digests, pushing
// it first when the scheduler lacks it, so that the submission uploads no
// module bytes the scheduler has. A module stays in s.Modules, uploaded
// with the job, only when the scheduler stores no modules on their own
// (one older than POST /v1/modules). It returns the names of the modules
// it pushed.
func (c *Client) pushMissing(ctx context.Context, s *api.Submission) ([]string, error) {
	var pushed []string
	for _, name := range slices.Sorted(maps.Keys(s.Modules)) {
		wasm := s.Modules[name]
		d := Digest(wasm)
		has, err := c.HasModule(ctx, d)
		if err != nil {
			return pushed, fmt.Errorf("module %q: asking the scheduler for sha256:%s: %w", name, d, err)
		}
		if !has {
			_, err := c.PushModule(ctx, name, wasm)
			if errors.Is(err, api.ErrNotFound) {
				continue // a scheduler that stores no modules: upload it with the job
			}
			if err != nil {
				return pushed, fmt.Errorf("module %q: pushing it: %w", name, err)
			}
			pushed = append(pushed, name)
		}
		if s.Digests == nil {
			s.Digests = map[string]string{}
		}
		s.Digests[name] = d
		delete(s.Modules, name)
	}
	return pushed, nil
}
