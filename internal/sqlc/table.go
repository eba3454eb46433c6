package sqlc

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// Table is a table a CREATE TABLE declared.
type Table struct {
	Name    string
	Columns []sqlprog.Column
	// Connector is the type of the source or sink (file, nexmark, kafka,
	// generator, stdout); Format how its records hold rows.
	Connector string
	Format    sqlprog.Format
	// Options are the WITH options left for the connector's section, in
	// the order written.
	Options []Option
	// EventTime is the index of the event-time column, or -1 for a table
	// without one; Delay is how far its watermark trails the largest
	// event time seen.
	EventTime int
	Delay     time.Duration
	// at is the statement's offset, for messages.
	at int
}

// Option is one WITH option passed to a connector.
type Option struct{ Key, Value string }

// column returns the index of column name, or -1.
func (t *Table) column(name string) int {
	return slices.IndexFunc(t.Columns, func(c sqlprog.Column) bool { return c.Name == name })
}

func (t *Table) columnNames() string {
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// createTable reads a CREATE TABLE statement.
func (c *compiler) createTable(s *pg.CreateStmt, at int) (*Table, error) {
	t := &Table{Name: s.Relation.Relname, EventTime: -1, at: at}
	for _, e := range s.TableElts {
		cd := e.GetColumnDef()
		if cd == nil {
			return nil, c.errAt(at, "CREATE TABLE %s: only columns are supported in the column list (a watermark is the WITH option watermark = 'col - 5s')", t.Name)
		}
		if t.column(cd.Colname) >= 0 {
			return nil, c.errAt(int(cd.Location), "column %q declared twice", cd.Colname)
		}
		typ, err := columnType(cd.TypeName)
		if err != nil {
			return nil, c.errAt(int(cd.TypeName.Location), "column %q: %v", cd.Colname, err)
		}
		t.Columns = append(t.Columns, sqlprog.Column{Name: cd.Colname, Type: typ})
	}
	if len(t.Columns) == 0 {
		return nil, c.errAt(at, "CREATE TABLE %s: a table needs columns", t.Name)
	}
	for _, o := range s.Options {
		d := o.GetDefElem()
		v, err := optionValue(d)
		if err != nil {
			return nil, c.errAt(int(d.Location), "option %s: %v", d.Defname, err)
		}
		if err := t.option(d.Defname, v); err != nil {
			return nil, c.errAt(int(d.Location), "option %s: %v", d.Defname, err)
		}
	}
	if t.Connector == "" {
		return nil, c.errAt(at, "CREATE TABLE %s: WITH (connector = '...') is required (file, nexmark, generator, kafka or stdout)", t.Name)
	}
	if t.Format == "" {
		t.Format = sqlprog.FormatCSV
	}
	return t, nil
}

// option applies the WITH option key = v.
func (t *Table) option(key, v string) error {
	switch key {
	case "connector":
		t.Connector = v
	case "format":
		if v != string(sqlprog.FormatCSV) && v != string(sqlprog.FormatJSON) {
			return fmt.Errorf("unknown format %q (want csv or json)", v)
		}
		t.Format = sqlprog.Format(v)
	case "watermark":
		return t.watermark(v)
	default:
		t.Options = append(t.Options, Option{key, v})
	}
	return nil
}

var watermarkRE = regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:-\s*([0-9][0-9a-z.]*)\s*)?$`)

// watermark reads 'col' or 'col - 5s': the event-time column (BIGINT
// milliseconds since the epoch) and the watermark's delay.
func (t *Table) watermark(v string) error {
	m := watermarkRE.FindStringSubmatch(v)
	if m == nil {
		return fmt.Errorf("%q: want 'column' or 'column - DURATION' such as 'ts - 5s'", v)
	}
	i := t.column(m[1])
	if i < 0 {
		return fmt.Errorf("no column %q (columns: %s)", m[1], t.columnNames())
	}
	if t.Columns[i].Type != sqlrow.BigInt {
		return fmt.Errorf("the event-time column %q must be BIGINT (milliseconds since the epoch), not %s", m[1], t.Columns[i].Type)
	}
	t.EventTime = i
	if m[2] != "" {
		d, err := time.ParseDuration(m[2])
		if err != nil || d < 0 {
			return fmt.Errorf("%q: the delay is a duration such as 5s or 500ms", v)
		}
		t.Delay = d
	}
	return nil
}

// optionValue returns a WITH option's value as text.
func optionValue(d *pg.DefElem) (string, error) {
	if d.Arg == nil {
		return "", fmt.Errorf("needs a value")
	}
	switch a := d.Arg.Node.(type) {
	case *pg.Node_String_:
		return a.String_.Sval, nil
	case *pg.Node_Integer:
		return strconv.FormatInt(int64(a.Integer.Ival), 10), nil
	case *pg.Node_Float:
		return a.Float.Fval, nil
	case *pg.Node_Boolean:
		return strconv.FormatBool(a.Boolean.Boolval), nil
	case *pg.Node_TypeName:
		// NB: a bare word such as true or csv parses as a type name.
		if n := a.TypeName.Names; len(n) > 0 {
			return n[len(n)-1].GetString_().Sval, nil
		}
	}
	return "", fmt.Errorf("want a quoted string or a number")
}

// columnType maps a column's SQL type to a row type.
func columnType(tn *pg.TypeName) (sqlrow.Type, error) {
	name := typeName(tn)
	switch name {
	case "int8", "int4", "int2", "bigint", "integer", "smallint", "int":
		return sqlrow.BigInt, nil
	case "float8", "float4", "numeric", "double", "real", "decimal":
		return sqlrow.Double, nil
	case "varchar", "text", "bpchar", "string":
		return sqlrow.Varchar, nil
	case "bool", "boolean":
		return sqlrow.Boolean, nil
	case "timestamp", "timestamptz", "date", "time":
		return 0, fmt.Errorf("type %s is not supported yet: keep times as BIGINT milliseconds since the epoch", strings.ToUpper(name))
	}
	return 0, fmt.Errorf("unknown type %s (want BIGINT, INT, DOUBLE, VARCHAR or BOOLEAN)", strings.ToUpper(name))
}

func typeName(tn *pg.TypeName) string {
	if tn == nil || len(tn.Names) == 0 {
		return ""
	}
	return tn.Names[len(tn.Names)-1].GetString_().Sval
}
