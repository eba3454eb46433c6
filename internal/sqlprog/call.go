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

// IsCall reports whether the program calls a Wasm function.
func (p *Program) IsCall() bool { return p.Returns != sqlrow.Null }

// checkCall checks what a call needs: rows in and out, and no WHERE or
// changelog, which belong to the program after it.
func (p *Program) checkCall() error {
	if !p.IsCall() {
		return nil
	}
	switch {
	case p.Returns > sqlrow.Varchar:
		return fmt.Errorf("returns: unknown type %d", p.Returns)
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
