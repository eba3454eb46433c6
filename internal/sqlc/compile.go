package sqlc

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// Job is a compiled SQL script.
type Job struct {
	// Spec is the job spec, YAML that internal/jobspec parses.
	Spec []byte
	// Explain is true when the script asked for EXPLAIN rather than a
	// run.
	Explain bool

	// src is the script; sources and sinks are the tables behind the
	// spec's sources and sinks, in order, for Locate.
	src            string
	sources, sinks []*Table
	// opFuncs holds, for each operator of the spec, the Wasm function it
	// calls, or nil.
	opFuncs []*Function
}

// Options are the job's defaults, which SET statements override.
type Options struct {
	// Name is the job's name when the script sets none.
	Name string
	// Dir is the directory a CREATE FUNCTION's relative module path is
	// relative to: the script's.
	Dir string
	// ModulesByDigest refuses a CREATE FUNCTION whose module is a path
	// rather than a digest (AS 'sha256:...'): a script compiled by the
	// scheduler may not name its files.
	ModulesByDigest bool
}

// compiler holds the state of one script's compilation.
type compiler struct {
	src     string
	tables  map[string]*Table
	order   []*Table
	queries []*query
	props   props
	explain bool
	funcs   map[string]*Function
	dir     string
	byRef   bool
	// flink is the Flink syntax rewrite.go took out of the text.
	flink flinkSyntax
}

// props are the job properties SET may change.
type props struct {
	name               string
	parallelism        int
	maxParallelism     int
	checkpointInterval time.Duration
	stateBackend       string
	// stateTTL bounds the regular joins after it (join.go).
	stateTTL time.Duration
}

// Compile compiles a SQL script into a job spec. An error in the script is
// an *Error (or several, joined) naming its line and column.
func Compile(src string, opt Options) (*Job, error) {
	text, flink, err := rewrite(src)
	if err != nil {
		return nil, err
	}
	res, err := pg.Parse(text)
	if err != nil {
		return nil, parseError(src, err)
	}
	c := &compiler{src: src, flink: flink, tables: map[string]*Table{}, props: props{name: opt.Name}, dir: opt.Dir, byRef: opt.ModulesByDigest}
	if c.props.name == "" {
		c.props.name = "sql"
	}
	for _, raw := range res.Stmts {
		if err := c.statement(raw.Stmt, int(raw.StmtLocation)); err != nil {
			return nil, err
		}
	}
	if len(c.queries) == 0 {
		return nil, errAt(src, len(src), "the script has no INSERT INTO ... SELECT: a job needs at least one query")
	}
	spec, sources, sinks, err := c.spec()
	if err != nil {
		return nil, err
	}
	return &Job{Spec: spec, Explain: c.explain, src: src, sources: sources, sinks: sinks, opFuncs: c.opFuncs()}, nil
}

// statement compiles one statement, which starts at offset at.
func (c *compiler) statement(n *pg.Node, at int) error {
	at = skipSpace(c.src, at)
	switch s := n.Node.(type) {
	case *pg.Node_CreateStmt:
		t, err := c.createTable(s.CreateStmt, at)
		if err != nil {
			return err
		}
		if _, dup := c.tables[t.Name]; dup {
			return c.errAt(int(s.CreateStmt.Relation.Location), "table %q is declared twice", t.Name)
		}
		c.tables[t.Name] = t
		c.order = append(c.order, t)
		return nil
	case *pg.Node_InsertStmt:
		q, err := c.insert(s.InsertStmt)
		if err != nil {
			return err
		}
		c.queries = append(c.queries, q)
		return nil
	case *pg.Node_ExplainStmt:
		if s.ExplainStmt.Query.GetInsertStmt() == nil {
			return c.errAt(at, "EXPLAIN takes an INSERT INTO ... SELECT")
		}
		c.explain = true
		return c.statement(s.ExplainStmt.Query, at)
	case *pg.Node_VariableSetStmt:
		return c.set(s.VariableSetStmt, at)
	case *pg.Node_CreateTableAsStmt:
		return c.createView(s.CreateTableAsStmt, at)
	case *pg.Node_CreateFunctionStmt:
		return c.createFunction(s.CreateFunctionStmt, at)
	case *pg.Node_DefineStmt:
		return c.createAggregate(s.DefineStmt, at)
	case *pg.Node_SelectStmt:
		return c.errAt(at, "a bare SELECT has nowhere to go: write INSERT INTO a table declared WITH (connector = 'stdout') SELECT ...")
	}
	return c.errAt(at, "this statement is not supported (want CREATE TABLE, CREATE FUNCTION, CREATE AGGREGATE, INSERT INTO ... SELECT, EXPLAIN or SET)")
}

// set applies SET key = value.
func (c *compiler) set(s *pg.VariableSetStmt, at int) error {
	if len(s.Args) != 1 {
		return c.errAt(at, "SET %s takes one value", s.Name)
	}
	k := s.Args[0].GetAConst()
	var v string
	switch {
	case k == nil:
		return c.errAt(at, "SET %s: want a constant", s.Name)
	case k.GetSval() != nil:
		v = k.GetSval().Sval
	case k.GetIval() != nil:
		v = strconv.Itoa(int(k.GetIval().Ival))
	default:
		return c.errAt(int(k.Location), "SET %s: want a number or a quoted string", s.Name)
	}
	var err error
	switch strings.ReplaceAll(s.Name, "_", "") {
	case "name":
		c.props.name = v
	case "parallelism":
		c.props.parallelism, err = positive(v)
	case "maxparallelism":
		c.props.maxParallelism, err = positive(v)
	case "checkpointinterval":
		c.props.checkpointInterval, err = time.ParseDuration(v)
	case "statebackend":
		c.props.stateBackend = v
	case "statettl":
		c.props.stateTTL, err = stateTTL(v)
	default:
		return c.errAt(at, "unknown setting %q (known: name, parallelism, max_parallelism, checkpoint_interval, state_backend, state_ttl)", s.Name)
	}
	if err != nil {
		return c.errAt(int(k.Location), "SET %s: %v", s.Name, err)
	}
	return nil
}

func positive(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("want an integer >= 1, got %q", v)
	}
	return n, nil
}

// skipSpace returns the offset of the first character at or after off that
// is not white space or a -- comment.
func skipSpace(s string, off int) int {
	for off < len(s) {
		switch {
		case s[off] == ' ' || s[off] == '\t' || s[off] == '\n' || s[off] == '\r':
			off++
		case strings.HasPrefix(s[off:], "--"):
			nl := strings.IndexByte(s[off:], '\n')
			if nl < 0 {
				return len(s)
			}
			off += nl + 1
		default:
			return off
		}
	}
	return off
}
