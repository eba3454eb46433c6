package sqlc

import (
	"slices"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
	"gopkg.in/yaml.v3"

	"github.com/floe-stream/floe/internal/sqlprog"
)

// An upsert-kafka table (Flink's connector of that name) is a sink that
// keeps a table in a compacted Kafka topic: it declares a PRIMARY KEY
// (NOT ENFORCED, as Flink writes it, or not), and compiles to a kafka sink
// whose upsertKey holds the key's columns. A query whose result is
// updating writes its changelog there with changelog: true, so that a
// delete becomes a tombstone; an appending query's rows are upserts.

// upsertKafka is the connector's name in WITH (connector = ...).
const upsertKafka = "upsert-kafka"

// primaryKey records the PRIMARY KEY of t, if keys holds one.
func (c *compiler) primaryKey(t *Table, keys []*pg.Constraint) error {
	switch len(keys) {
	case 0:
		return nil
	case 1:
	default:
		return c.errAt(int(keys[1].Location), "CREATE TABLE %s: a table has one PRIMARY KEY", t.Name)
	}
	t.primaryKeyAt = int(keys[0].Location)
	for _, n := range keys[0].Keys {
		name := n.GetString_().GetSval()
		i := t.column(name)
		switch {
		case i < 0:
			return c.errAt(t.primaryKeyAt, "PRIMARY KEY: %s has no column %q (%s)", t.Name, name, t.columnNames())
		case slices.Contains(t.primaryKey, i):
			return c.errAt(t.primaryKeyAt, "PRIMARY KEY: column %q named twice", name)
		}
		t.primaryKey = append(t.primaryKey, i)
	}
	return nil
}

// checkPrimaryKey refuses a PRIMARY KEY where it means nothing, and an
// upsert-kafka table without one.
func (c *compiler) checkPrimaryKey(t *Table) error {
	switch {
	case t.Connector == upsertKafka && len(t.primaryKey) == 0:
		return c.errAt(t.at, "CREATE TABLE %s: an upsert-kafka table needs a PRIMARY KEY (its Kafka key)", t.Name)
	case t.Connector == upsertKafka && t.Format != sqlprog.FormatCSV:
		return c.errAt(t.at, "CREATE TABLE %s: an upsert-kafka table's format is csv", t.Name)
	case t.Connector != upsertKafka && len(t.primaryKey) > 0:
		return c.errAt(t.primaryKeyAt, "PRIMARY KEY: only an upsert-kafka table has one (%s is %s)", t.Name, t.Connector)
	}
	return nil
}

// writesChangelog tells whether q's rows carry an op first: the last
// operator is a program that writes a changelog, or a regular outer
// join's that writes its inserts and deletes (outerjoin.go).
func (q *query) writesChangelog() bool {
	if len(q.ops) == 0 {
		return false
	}
	last := q.ops[len(q.ops)-1]
	return last.kind == "sql" && last.prog != nil && (last.prog.Changelog || last.prog.Retracts)
}

// upsertSink sets sink node n, of an upsert-kafka table t, to a kafka
// sink keyed by t's PRIMARY KEY; changelog tells that its queries write
// changelogs.
func upsertSink(n *yaml.Node, t *Table, changelog bool) {
	n.Content[1].Value = "kafka"
	keys := make([]string, len(t.primaryKey))
	for i, k := range t.primaryKey {
		keys[i] = strconv.Itoa(k)
	}
	add(n, "upsertKey", strings.Join(keys, ","))
	if changelog {
		add(n, "changelog", "true")
	}
}
