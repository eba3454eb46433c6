package sqlc

import (
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/floe-stream/floe/internal/sqlexpr"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// timestampFormat is how a source reads the text of its event-time column
// of type t: a TIMESTAMP's text (sqlrow's, the fraction optional), or
// BIGINT milliseconds.
func timestampFormat(t sqlrow.Type) string {
	if t == sqlrow.Timestamp {
		return "2006-01-02 15:04:05"
	}
	return "unix-ms"
}

// udfType is columnType for a Wasm function's argument or result: the
// SDKs know no TIMESTAMP.
func udfType(tn *pg.TypeName) (sqlrow.Type, error) {
	t, err := columnType(tn)
	if err == nil && t == sqlrow.Timestamp {
		return 0, fmt.Errorf("a Wasm function takes and returns no TIMESTAMP yet: declare a BIGINT and pass CAST(ts AS BIGINT), its milliseconds")
	}
	return t, err
}

// intervalMillis compiles an INTERVAL in an expression to its
// milliseconds, a BIGINT, which a TIMESTAMP adds and subtracts.
func (c *compiler) intervalMillis(tc *pg.TypeCast) (*sqlexpr.Expr, error) {
	d, err := c.interval(&pg.Node{Node: &pg.Node_TypeCast{TypeCast: tc}})
	if err != nil {
		return nil, err
	}
	return sqlexpr.Lit(sqlrow.Int(d.Milliseconds())), nil
}

// extract compiles EXTRACT(field FROM ts) to the function of that field.
func (c *compiler) extract(f *pg.FuncCall, sc scope) (*sqlexpr.Expr, error) {
	field := ""
	if len(f.Args) == 2 {
		if s := f.Args[0].GetAConst().GetSval(); s != nil {
			field = strings.ToLower(s.Sval)
		}
	}
	fn := sqlexpr.TimeFields[field]
	if fn == "" {
		return nil, c.errAt(int(f.Location), "EXTRACT takes YEAR, QUARTER, MONTH, WEEK, DAY, DOY, DOW, HOUR, MINUTE, SECOND or MILLISECOND FROM a TIMESTAMP")
	}
	return c.build(int(f.Location), sqlexpr.OpCall, fn, 0, sc, f.Args[1])
}

// bound returns the window bound at index i of the window's output row: a
// BIGINT of milliseconds, or a TIMESTAMP when the table's event time is
// one (the row holds milliseconds either way).
func (s *aggScope) bound(i int) *sqlexpr.Expr { return timeBound(s.output(i, sqlrow.BigInt), s.rs.t) }

// timeBound returns e, a window bound in milliseconds, as a TIMESTAMP when
// t's event time is one.
func timeBound(e *sqlexpr.Expr, t *Table) *sqlexpr.Expr {
	if t != nil && t.EventTime >= 0 && t.Columns[t.EventTime].Type == sqlrow.Timestamp {
		e, _ = sqlexpr.New(sqlexpr.OpCast, "", sqlrow.Timestamp, e)
	}
	return e
}
