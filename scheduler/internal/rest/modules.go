package rest

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/floe-stream/floe/scheduler/api"
)

// This file serves modules as artifacts of their own: POST /v1/modules
// pushes one (the body is the Wasm, ?name= names it), GET /v1/modules lists
// them, GET (or HEAD) /v1/modules/{digest} describes one and DELETE
// /v1/modules/{digest} deletes one no running job uses.

// moduleService returns the Service as an api.ModuleService, or an error
// that maps to 404.
func (h *handler) moduleService() (api.ModuleService, error) {
	ms, ok := h.svc.(api.ModuleService)
	if !ok {
		return nil, fmt.Errorf("%w: this service stores no modules", api.ErrNotFound)
	}
	return ms, nil
}

// pushModule serves POST /v1/modules: 201 with the stored module.
func (h *handler) pushModule(r *http.Request) (int, any, error) {
	ms, err := h.moduleService()
	if err != nil {
		return 0, nil, err
	}
	if r.ContentLength > h.maxUpload {
		return 0, nil, h.tooLarge()
	}
	wasm, err := io.ReadAll(r.Body)
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return 0, nil, h.tooLarge()
	case err != nil:
		return 0, nil, badRequest("reading the module: %v", err)
	case len(wasm) == 0:
		return 0, nil, badRequest("the body is empty: want the module's Wasm bytes")
	}
	info, err := ms.PushModule(r.Context(), r.URL.Query().Get("name"), wasm)
	return http.StatusCreated, info, err
}

// modules serves GET /v1/modules.
func (h *handler) modules(r *http.Request) (int, any, error) {
	ms, err := h.moduleService()
	if err != nil {
		return 0, nil, err
	}
	mods, err := ms.Modules(r.Context())
	if mods == nil {
		mods = []api.ModuleInfo{}
	}
	return http.StatusOK, struct {
		Modules []api.ModuleInfo `json:"modules"`
	}{mods}, err
}

// module serves GET and HEAD /v1/modules/{digest}.
func (h *handler) module(r *http.Request) (int, any, error) {
	ms, err := h.moduleService()
	if err != nil {
		return 0, nil, err
	}
	info, err := ms.Module(r.Context(), r.PathValue("digest"))
	return http.StatusOK, info, err
}

// deleteModule serves DELETE /v1/modules/{digest}: 204.
func (h *handler) deleteModule(r *http.Request) (int, any, error) {
	ms, err := h.moduleService()
	if err != nil {
		return 0, nil, err
	}
	if err := ms.DeleteModule(r.Context(), r.PathValue("digest")); err != nil {
		return 0, nil, err
	}
	return http.StatusNoContent, nil, nil
}
