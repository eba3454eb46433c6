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
	// Prefix is the start of the records of the table's kind in a stream
	// of several (a nexmark table's event option), stripped before reading.
	Prefix string
	// event is the event option as written, and eventAt its offset.
	event   string
	eventAt int
	// at is the statement's offset, for messages.
	at int
	// view is true for a materialized view (view.go).
	view bool
	// procTime names the table's PROCTIME() column, or is "" (flink.go).
	procTime string
	// primaryKey holds the columns of its PRIMARY KEY, none without one
	// (upsert.go); primaryKeyAt is the key's offset.
	primaryKey   []int
	primaryKeyAt int
}

// nexmarkEvents are the kinds of events of a nexmark stream: the prefix of
// their records, their fields after it, and the index of the field that is
// the record's event time.
// stream is the nexmark source's stream that holds that kind alone.
var nexmarkEvents = map[string]struct {
	prefix    string
	fields    string
	eventTime int
	stream    string
}{
	"person":  {"P,", "id, name, email_address, credit_card, city, state, date_time", 6, "persons"},
	"auction": {"A,", "id, item_name, description, initial_bid, reserve, date_time, expires, seller, category", 5, "auctions"},
	"bid":     {"B,", "auction, bidder, price, channel, url, date_time", 5, "bids"},
}

// nexmark checks a nexmark table: it names its kind of event, has one
// column per field of that kind, and its event time, if any, is the
// event's date_time, the record's own timestamp.
func (c *compiler) nexmark(t *Table) error {
	if t.event == "" {
		return c.errAt(t.at, "a nexmark table reads one kind of event: WITH (event = 'bid'), 'auction' or 'person'")
	}
	ev, ok := nexmarkEvents[t.event]
	if !ok {
		return c.errAt(t.eventAt, "option event: unknown nexmark event %q (want bid, auction or person)", t.event)
	}
	if n := strings.Count(ev.fields, ",") + 1; n != len(t.Columns) {
		return c.errAt(t.at, "a nexmark %s has %d fields (%s), the table declares %d columns", t.event, n, ev.fields, len(t.Columns))
	}
	if t.EventTime >= 0 && t.EventTime != ev.eventTime {
		return c.errAt(t.at, "a nexmark %s's event time is its column %d (date_time), not %q", t.event, ev.eventTime+1, t.Columns[t.EventTime].Name)
	}
	if t.Format != sqlprog.FormatCSV {
		return c.errAt(t.at, "a nexmark table is CSV")
	}
	t.Prefix = ev.prefix
	// NB: a source of one kind skips the event numbers of the others
	// without generating them; its events are those of the mixed stream.
	// Generating the whole stream to keep a kind by its prefix was, for a
	// join of two tables, twice the generation of the stream (RATIONALE.md).
	if !slices.ContainsFunc(t.Options, func(o Option) bool { return o.Key == "stream" }) {
		t.Options = append(t.Options, Option{Key: "stream", Value: ev.stream, at: t.eventAt})
	}
	return nil
}

// Option is one WITH option passed to a connector, and its offset in the
// script.
type Option struct {
	Key, Value string
	at         int
}

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
	var keys []*pg.Constraint
	for _, e := range s.TableElts {
		if k := e.GetConstraint(); k != nil && k.Contype == pg.ConstrType_CONSTR_PRIMARY {
			keys = append(keys, k)
			continue
		}
		cd := e.GetColumnDef()
		if cd == nil {
			return nil, c.errAt(at, "CREATE TABLE %s: only columns and WATERMARK FOR col AS col - INTERVAL '5' SECOND are supported in the column list", t.Name)
		}
		if t.column(cd.Colname) >= 0 {
			return nil, c.errAt(int(cd.Location), "column %q declared twice", cd.Colname)
		}
		typ, err := columnType(cd.TypeName)
		if err != nil {
			return nil, c.errAt(int(cd.TypeName.Location), "column %q: %v", cd.Colname, err)
		}
		t.Columns = append(t.Columns, sqlprog.Column{Name: cd.Colname, Type: typ})
		for _, n := range cd.Constraints {
			if k := n.GetConstraint(); k != nil && k.Contype == pg.ConstrType_CONSTR_PRIMARY {
				k.Keys = []*pg.Node{pg.MakeStrNode(cd.Colname)}
				keys = append(keys, k)
			}
		}
	}
	if err := c.primaryKey(t, keys); err != nil {
		return nil, err
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
		if d.Defname == "event" {
			t.event, t.eventAt = v, int(d.Location)
			continue
		}
		if err := t.option(d.Defname, v, int(d.Location)); err != nil {
			return nil, c.errAt(int(d.Location), "option %s: %v", d.Defname, err)
		}
	}
	if err := c.flinkDDL(t, int(s.Relation.Location)); err != nil {
		return nil, err
	}
	if t.Format == "" {
		t.Format = sqlprog.FormatCSV
	}
	switch {
	case t.Connector == "nexmark":
		if err := c.nexmark(t); err != nil {
			return nil, err
		}
	case t.event != "":
		return nil, c.errAt(t.eventAt, "option event: only for a nexmark table")
	}
	if t.Connector == "" {
		return nil, c.errAt(at, "CREATE TABLE %s: WITH (connector = '...') is required (file, nexmark, generator, kafka, upsert-kafka or stdout)", t.Name)
	}
	if err := c.checkPrimaryKey(t); err != nil {
		return nil, err
	}
	return t, nil
}

// option applies the WITH option key = v.
func (t *Table) option(key, v string, at int) error {
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
		t.Options = append(t.Options, Option{camel(key), v, at})
	}
	return nil
}

// camel turns an option written in snake_case into the camelCase of a
// spec's field: events_per_second is eventsPerSecond. PostgreSQL folds an
// unquoted name to lower case, so eventsPerSecond arrives as
// eventspersecond; the snake_case form, or the name in double quotes,
// keeps the word breaks.
func camel(key string) string {
	parts := strings.Split(key, "_")
	for i := 1; i < len(parts); i++ {
		if p := parts[i]; p != "" {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return strings.Join(parts, "")
}

var watermarkRE = regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:-\s*([0-9][0-9a-z.]*)\s*)?$`)

// watermark reads 'col' or 'col - 5s': the event-time column (BIGINT
// milliseconds since the epoch) and the watermark's delay.
func (t *Table) watermark(v string) error {
	m := watermarkRE.FindStringSubmatch(v)
	if m == nil {
		return fmt.Errorf("%q: want 'column' or 'column - DURATION' such as 'ts - 5s'", v)
	}
	var d time.Duration
	if m[2] != "" {
		var err error
		d, err = time.ParseDuration(m[2])
		if err != nil || d < 0 {
			return fmt.Errorf("%q: the delay is a duration such as 5s or 500ms", v)
		}
	}
	return t.eventTime(m[1], d)
}

// eventTime makes column col the table's event time, its watermark
// trailing by delay.
func (t *Table) eventTime(col string, delay time.Duration) error {
	if t.EventTime >= 0 {
		return fmt.Errorf("the table already has a watermark, on %q", t.Columns[t.EventTime].Name)
	}
	i := t.column(col)
	if i < 0 {
		return fmt.Errorf("no column %q (columns: %s)", col, t.columnNames())
	}
	if ty := t.Columns[i].Type; ty != sqlrow.BigInt && ty != sqlrow.Timestamp {
		return fmt.Errorf("the event-time column %q must be a TIMESTAMP or a BIGINT (milliseconds since the epoch), not %s", col, ty)
	}
	t.EventTime, t.Delay = i, delay
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
	case "timestamp":
		return sqlrow.Timestamp, nil
	case "timestamptz", "date", "time":
		return 0, fmt.Errorf("type %s is not supported yet: use TIMESTAMP (without a time zone: UTC)", strings.ToUpper(name))
	}
	return 0, fmt.Errorf("unknown type %s (want BIGINT, INT, DOUBLE, VARCHAR, BOOLEAN or TIMESTAMP)", strings.ToUpper(name))
}

func typeName(tn *pg.TypeName) string {
	if tn == nil || len(tn.Names) == 0 {
		return ""
	}
	return tn.Names[len(tn.Names)-1].GetString_().Sval
}
