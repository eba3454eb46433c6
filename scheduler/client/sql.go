package client

import (
	"context"
	"encoding/json"
	"net/http"
)

// SQLSubmission is a stream SQL script to compile and submit on the
// scheduler (POST /v1/sql).
type SQLSubmission struct {
	// SQL is the script; Name the job's name when it sets none.
	SQL  string `json:"sql"`
	Name string `json:"name,omitempty"`
	// Set fills the ${name} parameters of its WITH options.
	Set map[string]string `json:"set,omitempty"`
	// Parallelism overrides the script's default when set.
	Parallelism int `json:"parallelism,omitempty"`
}

// SubmitSQL has the scheduler compile a script and submit its job, and
// returns the job's id. A problem of the script wraps api.ErrBadRequest;
// its message names the line and column.
func (c *Client) SubmitSQL(ctx context.Context, s SQLSubmission) (string, error) {
	body, err := json.Marshal(s)
	if err != nil {
		return "", err
	}
	var out struct {
		ID string `json:"id"`
	}
	err = c.do(ctx, request{method: http.MethodPost, path: "/v1/sql", body: body,
		contentType: "application/json", want: http.StatusCreated, out: &out})
	return out.ID, err
}
