package kafka

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/floe-stream/floe/internal/excerpt"
)

// Upsert makes a sink write a table's rows keyed by their primary key, as
// a compacted topic keeps them (Flink's upsert-kafka): each record is a
// CSV row, or with Ops a changelog line, the op (upsert or delete) then
// the row. The Kafka key is the row's Key fields as written, joined by
// commas; the value is the row without the op, and a delete is a
// tombstone: the key and no value. A consumer that keeps the last value
// per key, and drops a key at its tombstone, holds the table.
type Upsert struct {
	// Key are the 0-based fields of the row that form the Kafka key.
	Key []int
	// Ops tells that each record starts with an op field, upsert or
	// delete, as a SQL updating result's changelog does.
	Ops bool
}

// The ops of a changelog line: an updating GROUP BY's upsert and delete,
// and an outer join's insert, which a keyed table takes as an upsert.
const (
	opUpsert = "upsert"
	opInsert = "insert"
	opDelete = "delete"
)

// ParseUpsertKey parses "0,2": the fields of an upsert sink's key.
func ParseUpsertKey(s string) ([]int, error) {
	var key []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%q is not a comma-separated list of fields from 0", s)
		}
		key = append(key, n)
	}
	return key, nil
}

// convert returns the Kafka key and value of record v, or an error that
// quotes it.
func (u *Upsert) convert(v []byte) (key, value []byte, err error) {
	row, del := v, false
	if u.Ops {
		op, rest, found := bytes.Cut(v, []byte{','})
		switch string(op) {
		case opUpsert, opInsert:
		case opDelete:
			del = true
		default:
			return nil, nil, fmt.Errorf("upsert sink: record %s does not start with the op upsert, insert or delete", strconv.Quote(excerpt.Cut(string(v), 200)))
		}
		if !found {
			return nil, nil, fmt.Errorf("upsert sink: record %s has no row after its op", strconv.Quote(excerpt.Cut(string(v), 200)))
		}
		row = rest
	}
	spans, ok := csvSpans(row)
	if !ok {
		return nil, nil, fmt.Errorf("upsert sink: record %s: an unterminated quoted field", strconv.Quote(excerpt.Cut(string(v), 200)))
	}
	for i, f := range u.Key {
		if f >= len(spans) {
			return nil, nil, fmt.Errorf("upsert sink: record %s has %d fields, the key wants field %d", strconv.Quote(excerpt.Cut(string(v), 200)), len(spans), f)
		}
		if i > 0 {
			key = append(key, ',')
		}
		key = append(key, row[spans[f][0]:spans[f][1]]...)
	}
	if del {
		return key, nil, nil
	}
	return key, row, nil
}

// csvSpans returns the byte ranges of the fields of a CSV line as RFC 4180
// writes them (a field in double quotes may hold commas and doubled
// quotes), quotes included; false for a quote left open.
func csvSpans(v []byte) ([][2]int, bool) {
	var spans [][2]int
	for i := 0; ; {
		start := i
		if i < len(v) && v[i] == '"' {
			for i++; ; i++ {
				if i >= len(v) {
					return nil, false
				}
				if v[i] == '"' {
					if i+1 < len(v) && v[i+1] == '"' {
						i++
						continue
					}
					i++
					break
				}
			}
		}
		for i < len(v) && v[i] != ',' {
			i++
		}
		spans = append(spans, [2]int{start, i})
		if i >= len(v) {
			return spans, true
		}
		i++
	}
}
