package sqlprog

import (
	"fmt"

	"github.com/floe-stream/floe/internal/sqlrow"
)

// A program with Returns set is the call of a scalar Wasm function: its
// operator reads rows, computes the function's arguments with Select,
// hands the module one record per row whose value is the argument row in
// internal/sqlrow's encoding, and writes each input row with the encoded
// result appended (sdk/ABI.md, "SQL functions").

// A program with Rows set is the call of a table function: the same, but
// the function returns, for each argument row, zero or more result rows
// back to back, and the operator writes the input row once per result row,
// with it appended.

// IsCall reports whether the program calls a Wasm function.
func (p *Program) IsCall() bool { return p.Returns != sqlrow.Null || len(p.Rows) > 0 }

// checkCall checks what a call needs: rows in and out, and no WHERE or
// changelog, which belong to the program after it.
func (p *Program) checkCall() error {
	if !p.IsCall() {
		return nil
	}
	for i, t := range p.Rows {
		if t == sqlrow.Null || t > sqlrow.Varchar {
			return fmt.Errorf("rows[%d]: unknown type %d", i, t)
		}
	}
	switch {
	case p.Returns > sqlrow.Varchar:
		return fmt.Errorf("returns: unknown type %d", p.Returns)
	case p.Returns != sqlrow.Null && len(p.Rows) > 0:
		return fmt.Errorf("returns and rows: a call is of a scalar function or of a table function")
	case p.In != FormatRow || p.Out != FormatRow:
		return fmt.Errorf("returns: a function call reads and writes rows (in: row, out: row)")
	case p.Where != nil || p.Changelog || p.Prefix != "":
		return fmt.Errorf("returns: a function call has no where, prefix or changelog")
	}
	return nil
}

// CheckResult checks that b, what the function returned for one row, is
// one encoded value of the program's Returns type or NULL, and nothing
// more.
func (p *Program) CheckResult(b []byte) error {
	v, n, err := sqlrow.DecodeValue(b)
	switch {
	case err != nil:
		return fmt.Errorf("the result does not decode as a SQL value: %w", err)
	case n != len(b):
		return fmt.Errorf("the result holds %d bytes after its value: want one value", len(b)-n)
	case v.T != sqlrow.Null && v.T != p.Returns:
		return fmt.Errorf("the result is a %s, the function returns %s", v.T, p.Returns)
	}
	return nil
}

// SplitRows checks that b, what a table function returned for one row, is
// zero or more rows of the program's Rows types (each value of its
// column's type or NULL), and appends each row's bytes to dst.
func (p *Program) SplitRows(dst [][]byte, b []byte) ([][]byte, error) {
	for len(b) > 0 {
		n := 0
		for col, want := range p.Rows {
			if n == len(b) {
				return dst, fmt.Errorf("the result ends inside a row, after %d of its %d values", col, len(p.Rows))
			}
			v, m, err := sqlrow.DecodeValue(b[n:])
			switch {
			case err != nil:
				return dst, fmt.Errorf("the result does not decode as SQL rows: %w", err)
			case v.T != sqlrow.Null && v.T != want:
				return dst, fmt.Errorf("column %d of a result row is a %s, the function returns %s", col+1, v.T, want)
			}
			n += m
		}
		dst, b = append(dst, b[:n]), b[n:]
	}
	return dst, nil
}
