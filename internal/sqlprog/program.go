package sqlprog

import (
	"fmt"

	"github.com/floe-stream/floe/internal/sqlexpr"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// Format is how a record's value holds a row.
type Format string

// The formats.
const (
	// FormatRow is the binary encoding of internal/sqlrow, between SQL
	// operators.
	FormatRow Format = "row"
	// FormatCSV is one CSV line, in column order.
	FormatCSV Format = "csv"
	// FormatJSON is one JSON object with a member per column.
	FormatJSON Format = "json"
)

// Column is a named, typed column of a row.
type Column struct {
	Name string      `json:"name"`
	Type sqlrow.Type `json:"type"`
}

// Program is the work of a sql operator, record by record.
type Program struct {
	// In is the format of the records the operator reads, and Columns
	// their schema.
	In Format `json:"in"`
	// Prefix, when set, keeps only the records whose value starts with
	// it, and reads them without it: "B," reads the bids of a Nexmark
	// stream, which mixes three kinds of events.
	Prefix  string   `json:"prefix,omitempty"`
	Columns []Column `json:"columns"`
	// Where keeps the rows it holds for; nil keeps every row.
	Where *sqlexpr.Expr `json:"where,omitempty"`
	// Select computes the output row; Names names its columns (JSON
	// members).
	Select []*sqlexpr.Expr `json:"select"`
	Names  []string        `json:"names"`
	// Out is the format of the records the operator writes.
	Out Format `json:"out"`
	// Changelog makes the output a changelog of an updating result: each
	// row that WHERE keeps is written as an upsert, each it does not as a
	// delete, with the op first (a CSV field, or the JSON member "op").
	Changelog bool `json:"changelog,omitempty"`
	// Retracts makes the output the changelog of a retracting outer join
	// (JoinRows.Changelog), whose input rows end with a BIGINT, 1 for the
	// retraction of an earlier row and 0 else: each row that WHERE keeps
	// is written as an insert or a delete, with the op first.
	Retracts bool `json:"retracts,omitempty"`
	// Returns, when set, makes the program a call of a scalar Wasm
	// function (call.go): Select computes the function's arguments and
	// the operator writes its input row with the function's result, of
	// this type, appended.
	Returns sqlrow.Type `json:"returns,omitzero"`
	// Rows, when set, makes the program a call of a table function
	// (call.go): the operator writes its input row once for each row the
	// function returns for it, with that row, of these types, appended.
	Rows []sqlrow.Type `json:"rows,omitempty"`
	// View, when set, makes the program keep a materialized view
	// (view.go): the queryable keyed state of that name holds each
	// key's current row, which Where (HAVING) deletes.
	View string `json:"view,omitempty"`
}

// The ops of a changelog.
const (
	OpUpsert = "upsert"
	OpDelete = "delete"
	OpInsert = "insert"
)

// ParseProgram reads a program from its JSON form and checks it.
func ParseProgram(s string) (*Program, error) {
	var p Program
	if err := strictJSON(s, &p); err != nil {
		return nil, err
	}
	if err := p.Check(); err != nil {
		return nil, err
	}
	return &p, nil
}

// String returns the program's JSON form.
func (p *Program) String() string {
	return marshal(p)
}

// Types returns the types of the input columns.
func (p *Program) Types() []sqlrow.Type { return types(p.Columns) }

func types(cols []Column) []sqlrow.Type {
	ts := make([]sqlrow.Type, len(cols))
	for i, c := range cols {
		ts[i] = c.Type
	}
	return ts
}

// OutputTypes returns the types of the output columns.
func (p *Program) OutputTypes() []sqlrow.Type {
	ts := make([]sqlrow.Type, len(p.Select))
	for i, e := range p.Select {
		ts[i] = e.Type
	}
	return ts
}

// Check verifies the program: known formats, column types, every
// expression well typed over the input columns, WHERE a BOOLEAN.
func (p *Program) Check() error {
	if err := checkFormat("in", p.In); err != nil {
		return err
	}
	if err := checkFormat("out", p.Out); err != nil {
		return err
	}
	if p.Changelog && p.Out == FormatRow {
		return fmt.Errorf("changelog: only for text records (out: csv or json)")
	}
	if err := p.checkRetracts(); err != nil {
		return err
	}
	if p.Prefix != "" && p.In == FormatRow {
		return fmt.Errorf("prefix: only for text records (in: csv or json)")
	}
	for i, c := range p.Columns {
		if c.Type == sqlrow.Null || c.Type > sqlrow.Timestamp {
			return fmt.Errorf("columns[%d]: %q has no type", i, c.Name)
		}
	}
	ts := p.Types()
	if p.Where != nil {
		if err := sqlexpr.Check(p.Where, ts); err != nil {
			return fmt.Errorf("where: %w", err)
		}
		if p.Where.Type != sqlrow.Boolean && p.Where.Type != sqlrow.Null {
			return fmt.Errorf("where: a %s, not a BOOLEAN", p.Where.Type)
		}
	}
	if len(p.Select) == 0 {
		return fmt.Errorf("select: no columns")
	}
	if len(p.Names) != len(p.Select) {
		return fmt.Errorf("names: %d names for %d columns", len(p.Names), len(p.Select))
	}
	for i, e := range p.Select {
		if err := sqlexpr.Check(e, ts); err != nil {
			return fmt.Errorf("select[%d]: %w", i, err)
		}
	}
	if err := p.checkCall(); err != nil {
		return err
	}
	return p.checkView()
}

func checkFormat(field string, f Format) error {
	switch f {
	case FormatRow, FormatCSV, FormatJSON:
		return nil
	}
	return fmt.Errorf("%s: unknown format %q (want row, csv or json)", field, f)
}

// Accept returns the part of a record value that holds the input row, and
// false for a record without the program's Prefix, which it skips.
func (p *Program) Accept(v []byte) ([]byte, bool) {
	if p.Prefix == "" {
		return v, true
	}
	if len(v) < len(p.Prefix) || string(v[:len(p.Prefix)]) != p.Prefix {
		return nil, false
	}
	return v[len(p.Prefix):], true
}

// Decode reads a record value (after Accept) as an input row, into dst's
// storage.
func (p *Program) Decode(dst sqlrow.Row, v []byte) (sqlrow.Row, error) {
	switch p.In {
	case FormatCSV:
		return sqlrow.ParseCSV(dst[:0], v, p.Types())
	case FormatJSON:
		names := make([]string, len(p.Columns))
		for i, c := range p.Columns {
			names[i] = c.Name
		}
		return sqlrow.ParseJSON(dst[:0], v, names, p.Types())
	}
	return sqlrow.DecodeRow(dst, v, len(p.Columns))
}

// Run applies the program to one input row: it appends the encoded output
// row to out and returns it with true, or returns out unchanged and false
// when WHERE does not hold.
func (p *Program) Run(in sqlrow.Row, out []byte) ([]byte, bool, error) {
	op := OpUpsert
	if p.Retracts {
		op = retractOp(in)
	}
	if p.Where != nil {
		ok, err := p.Where.Eval(in)
		if err != nil {
			return out, false, fmt.Errorf("WHERE: %w", err)
		}
		if !ok.True() {
			if !p.Changelog {
				return out, false, nil
			}
			op = OpDelete
		}
	}
	// NB: a buffer on the stack for the usual width saves an allocation
	// per row.
	var buf [16]sqlrow.Value
	row := sqlrow.Row(buf[:0])
	if len(p.Select)+1 > len(buf) {
		row = make(sqlrow.Row, 0, len(p.Select)+1)
	}
	names := p.Names
	if p.Changelog || p.Retracts {
		row = append(row, sqlrow.Str(op))
		names = append([]string{"op"}, names...)
	}
	for i, e := range p.Select {
		v, err := e.Eval(in)
		if err != nil {
			return out, false, fmt.Errorf("column %s: %w", p.Names[i], err)
		}
		row = append(row, v)
	}
	switch p.Out {
	case FormatCSV:
		return sqlrow.AppendCSV(out, row), true, nil
	case FormatJSON:
		return sqlrow.AppendJSON(out, names, row), true, nil
	}
	return sqlrow.AppendRow(out, row), true, nil
}
