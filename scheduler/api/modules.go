package api

import "context"

// ModuleInfo describes a Wasm module that the scheduler stores
// (GET /v1/modules/{digest}).
type ModuleInfo struct {
	// Digest is the hex SHA-256 of the module's bytes: what a spec names it
	// by (sha256:DIGEST or NAME@sha256:DIGEST).
	Digest string `json:"digest"`
	// Name is the name it was pushed or first uploaded with; may be empty.
	Name string `json:"name,omitempty"`
	// Size is its size in bytes.
	Size int64 `json:"size"`
	// Functions maps each function the module registers to its kind (map,
	// flatMap, process, …); absent for a module whose SDK lists none.
	Functions map[string]string `json:"functions,omitempty"`
	// UsedBy lists, sorted, the jobs that run it and have not ended: while
	// there is one, the module cannot be deleted.
	UsedBy []string `json:"usedBy,omitempty"`
}

// ModuleService is implemented by a Service that stores modules on their
// own, so that jobs name them by digest instead of uploading them: the REST
// API serves /v1/modules when its Service implements it.
type ModuleService interface {
	// PushModule validates a module (it compiles, and its function table
	// reads), stores it by digest and replicates it, and returns what it
	// stored. Pushing a module the scheduler has is cheap: it is not
	// compiled again. Errors wrap ErrBadRequest (invalid Wasm, bad name).
	PushModule(ctx context.Context, name string, wasm []byte) (ModuleInfo, error)
	// Modules lists the stored modules, sorted by name and digest.
	Modules(ctx context.Context) ([]ModuleInfo, error)
	// Module returns one stored module: ErrBadRequest for a malformed
	// digest, ErrNotFound for one the scheduler does not have.
	Module(ctx context.Context, digest string) (ModuleInfo, error)
	// DeleteModule deletes a stored module: ErrNotFound as Module,
	// ErrConflict while a job that has not ended runs it.
	DeleteModule(ctx context.Context, digest string) error
}
