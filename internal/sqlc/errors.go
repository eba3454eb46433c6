package sqlc

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/pganalyze/pg_query_go/v6/parser"
)

// Error is a problem of a SQL script at a place in its text.
type Error struct {
	// Line and Column are 1-based; Column counts characters.
	Line, Column int
	Msg          string
	// Source is the line of the script the problem is on.
	Source string
}

// Error returns the message with its place and the offending line, a caret
// under the column:
//
//	line 2, column 25: unknown column "pricee" (known: auction, price)
//	  INSERT INTO o SELECT pricee FROM bids
//	                       ^
func (e *Error) Error() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "line %d, column %d: %s", e.Line, e.Column, e.Msg)
	if e.Source != "" {
		pad := strings.Map(func(r rune) rune {
			if r == '\t' {
				return r
			}
			return ' '
		}, string([]rune(e.Source)[:min(e.Column-1, utf8.RuneCountInString(e.Source))]))
		fmt.Fprintf(&sb, "\n  %s\n  %s^", e.Source, pad)
	}
	return sb.String()
}

// errAt returns an Error at byte offset off of src.
func errAt(src string, off int, format string, args ...any) *Error {
	off = max(0, min(off, len(src)))
	line := 1 + strings.Count(src[:off], "\n")
	start := strings.LastIndexByte(src[:off], '\n') + 1
	end := strings.IndexByte(src[off:], '\n')
	if end < 0 {
		end = len(src)
	} else {
		end += off
	}
	return &Error{Line: line, Column: 1 + utf8.RuneCountInString(src[start:off]),
		Msg: fmt.Sprintf(format, args...), Source: strings.TrimRight(src[start:end], "\r")}
}

// parseError turns pg_query's error into one at its cursor.
func parseError(src string, err error) error {
	var pe *parser.Error
	if errors.As(err, &pe) && pe.Cursorpos > 0 {
		// NB: Cursorpos counts bytes from 1, like PostgreSQL's.
		return errAt(src, pe.Cursorpos-1, "%s", pe.Message)
	}
	return fmt.Errorf("parsing SQL: %w", err)
}
