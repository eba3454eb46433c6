package rest

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/floe-stream/floe/scheduler/api"
)

// SQLCompiler compiles a stream SQL script (docs/sql.md) into a job spec;
// name is the job's name when the script sets none, and set the values of
// its parameters, with which it may check the spec. An error in the
// script should have a Position method giving its 1-based line and column
// (internal/sqlc.Error does), which the 400 answer reports. It must be
// safe for concurrent use.
type SQLCompiler func(script, name string, set map[string]string) (spec []byte, err error)

// sqlRequest is the body of POST /v1/sql.
type sqlRequest struct {
	// SQL is the script.
	SQL string `json:"sql"`
	// Name is the job's name when the script sets none (default "sql").
	Name string `json:"name,omitempty"`
	// Set fills the ${name} parameters of the script's WITH options.
	Set map[string]string `json:"set,omitempty"`
	// Parallelism overrides the script's default parallelism when set.
	Parallelism int `json:"parallelism,omitempty"`
}

// sqlErrorBody is the 400 answer to a script with an error: where it is.
type sqlErrorBody struct {
	Error  string `json:"error"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
}

// submitSQL compiles a SQL script and submits the job it makes, as a job
// upload without modules: a script's functions name their modules by
// digest, pushed before with POST /v1/modules. The scheduler never reads
// a path a script names.
func (h *handler) submitSQL(r *http.Request) (int, any, error) {
	if h.compileSQL == nil {
		return http.StatusNotImplemented, errorBody{"this scheduler was started without a SQL compiler"}, nil
	}
	var req sqlRequest
	dec := json.NewDecoder(http.MaxBytesReader(nil, r.Body, h.maxUpload))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return 0, nil, h.tooLarge()
		}
		return 0, nil, badRequest("want a JSON body {\"sql\": \"...\"}: %v", err)
	}
	if req.SQL == "" {
		return 0, nil, badRequest("sql: required, the script")
	}
	if req.Parallelism < 0 {
		return 0, nil, badRequest("parallelism: want a number >= 1, got %d", req.Parallelism)
	}
	if req.Name == "" {
		req.Name = "sql"
	}
	spec, err := h.compileSQL(req.SQL, req.Name, req.Set)
	if err != nil {
		return http.StatusBadRequest, scriptError(err), nil
	}
	id, err := h.svc.Submit(r.Context(), api.Submission{Spec: spec, Params: req.Set, Parallelism: req.Parallelism})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, submitted{id}, nil
}

// scriptError is the body of a script's error, with the place of its
// first located problem.
func scriptError(err error) sqlErrorBody {
	body := sqlErrorBody{Error: err.Error()}
	var at interface{ Position() (line, column int) }
	if errors.As(err, &at) {
		body.Line, body.Column = at.Position()
	}
	return body
}
