package sqlc

// Position returns the problem's 1-based line and column, for an API
// that reports them apart from the message (POST /v1/sql).
func (e *Error) Position() (line, column int) { return e.Line, e.Column }
