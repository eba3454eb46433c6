package sqlop

import (
	"context"
	"fmt"
	"slices"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/internal/sqlprog"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// TopN runs a SQL Top-N or deduplication: it keeps each key's ranked rows
// (at most N, sqlprog.TopN) in keyed state and, for every batch, emits
// each rank of each key whose row the batch changed, once, as the row
// input..., rank (from 1), stamped with the key's last record's
// timestamp. The input only grows, so a rank once filled stays filled:
// its row may change, it never goes away. It is used by one task
// goroutine.
type TopN struct {
	uid  string
	rank *sqlprog.TopN
	rows udf.ValueState

	touched map[string]int
	order   []ranked
	// oldRanks and nowRanks are retract's scratch.
	oldRanks, nowRanks []int64
}

// ranked is a key a batch touched: its rows before and now.
type ranked struct {
	kg       uint16
	key      []byte
	old, now []sqlrow.Row
	ts       int64
}

// NewTopN returns the operator uid, its ranked rows in the keyed state
// uid/rows.
func NewTopN(uid string, rank *sqlprog.TopN, state udf.Keyed) (*TopN, error) {
	rows, err := state.Value(uid + "/rows")
	if err != nil {
		return nil, fmt.Errorf("sql top-n %s: %w", uid, err)
	}
	return &TopN{uid: uid, rank: rank, rows: rows, touched: map[string]int{}}, nil
}

// Process ranks the batch's rows and appends each changed rank to out.
func (o *TopN) Process(ctx context.Context, in, out *record.Batch) error {
	clear(o.touched)
	o.order = o.order[:0]
	for i := range in.Records {
		r := &in.Records[i]
		k, ok := o.touched[string(r.Key)]
		if !ok {
			old, err := o.load(r.KeyGroup, r.Key)
			if err != nil {
				return err
			}
			k = len(o.order)
			o.touched[string(r.Key)] = k
			o.order = append(o.order, ranked{kg: r.KeyGroup, key: r.Key, old: old, now: slices.Clone(old)})
		}
		// NB: DecodeRow copies what it reads, so the row outlives the batch.
		row, err := sqlrow.DecodeRow(nil, r.Value, len(o.rank.Input))
		if err != nil {
			return fmt.Errorf("sql top-n %s: a record: %w", o.uid, err)
		}
		o.order[k].now, _ = o.rank.Insert(o.order[k].now, row)
		o.order[k].ts = r.Timestamp
	}
	var buf []byte
	for _, t := range o.order {
		buf = buf[:0]
		for _, row := range t.now {
			buf = sqlrow.AppendRow(buf, row)
		}
		if err := o.rows.Put(t.kg, t.key, buf); err != nil {
			return fmt.Errorf("sql top-n %s: %w", o.uid, err)
		}
		if o.rank.Retracts() {
			o.retract(t, out)
			continue
		}
		for i, row := range t.now {
			if i < len(t.old) && sameRow(t.old[i], row) {
				continue
			}
			buf = sqlrow.AppendValue(sqlrow.AppendRow(buf[:0], row), sqlrow.Int(int64(i+1)))
			out.AppendKeyed(t.key, buf, t.ts, t.kg)
		}
	}
	return nil
}

// retract appends, for a key under RANK() or DENSE_RANK(), each (row,
// rank) the batch took out of its ranking as the row input..., rank,
// FALSE, then each it put in as input..., rank, TRUE.
func (o *TopN) retract(t ranked, out *record.Batch) {
	o.oldRanks = o.rank.Ranks(o.oldRanks[:0], t.old)
	o.nowRanks = o.rank.Ranks(o.nowRanks[:0], t.now)
	var buf []byte
	emit := func(rows []sqlrow.Row, ranks []int64, other []sqlrow.Row, otherRanks []int64, live bool) {
		for i, row := range rows {
			if rankedAt(other, otherRanks, row, ranks[i]) {
				continue
			}
			buf = sqlrow.AppendValue(sqlrow.AppendRow(buf[:0], row), sqlrow.Int(ranks[i]))
			out.AppendKeyed(t.key, sqlrow.AppendValue(buf, sqlrow.Bool(live)), t.ts, t.kg)
		}
	}
	emit(t.old, o.oldRanks, t.now, o.nowRanks, false)
	emit(t.now, o.nowRanks, t.old, o.oldRanks, true)
}

// rankedAt reports whether rows holds row (the very row) at rank.
func rankedAt(rows []sqlrow.Row, ranks []int64, row sqlrow.Row, rank int64) bool {
	for i, r := range rows {
		if ranks[i] == rank && sameRow(r, row) {
			return true
		}
	}
	return false
}

// sameRow reports whether a and b are the same row: the very row, which
// Insert moves without copying.
func sameRow(a, b sqlrow.Row) bool { return len(a) > 0 && len(b) > 0 && &a[0] == &b[0] }

// load returns the ranked rows of key.
func (o *TopN) load(kg uint16, key []byte) ([]sqlrow.Row, error) {
	b, ok, err := o.rows.Get(kg, key)
	if err != nil || !ok {
		return nil, err
	}
	rows, err := decodeRows(b, len(o.rank.Input))
	if err != nil {
		return nil, fmt.Errorf("sql top-n %s: the ranked rows: %w", o.uid, err)
	}
	return rows, nil
}

// Close implements the task's Operator; the state is the task's.
func (o *TopN) Close(context.Context) error { return nil }
