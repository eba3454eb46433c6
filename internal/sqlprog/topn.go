package sqlprog

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/floe-stream/floe/internal/sqlexpr"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// TopN is the ranking of a sqlTopN operator or of a window Top-N (a SQL
// window whose function ranks): per key (the first Keys values of each
// input row), the rows in Order whose rank is at most N. Fn is the SQL
// function that numbers them: ROW_NUMBER() (the default) numbers rows 1,
// 2, 3, ... and keeps N; RANK() gives tied rows the same rank and skips
// the ranks after them (1, 1, 3), DENSE_RANK() skips none (1, 1, 2), and
// both keep every row tied with the N-th, so they may keep more than N.
// A row that ties with one already ranked goes after it, so the first to
// arrive keeps its place: deduplication is a TopN of 1 ordered by event
// time.
//
// Under RANK() and DENSE_RANK() a sqlTopN retracts: a row is identified
// by its values and its rank, not by a position, so it emits each (row,
// rank) that left the ranking with a last BOOLEAN column FALSE before each
// that entered it with TRUE (Retracts).
type TopN struct {
	// Input is the row's schema: the keys, then anything.
	Input []sqlrow.Type `json:"input"`
	Keys  int           `json:"keys"`
	Order []SortKey     `json:"order"`
	N     int           `json:"n"`
	Fn    string        `json:"fn,omitempty"`
}

// The ranking functions of a TopN.
const (
	RowNumber = "row_number"
	Rank      = "rank"
	DenseRank = "dense_rank"
)

// SortKey is one ORDER BY item: a column of the input row, descending or
// not, and where NULL goes, whatever the direction: first when NullsFirst,
// last otherwise. (The compiler sets it as PostgreSQL does: NULLS LAST
// ascending and NULLS FIRST descending, unless the query says.)
type SortKey struct {
	Col        int  `json:"col"`
	Desc       bool `json:"desc,omitempty"`
	NullsFirst bool `json:"nullsFirst,omitempty"`
}

// ParseTopN reads a TopN from its JSON form and checks it.
func ParseTopN(s string) (*TopN, error) {
	var t TopN
	if err := strictJSON(s, &t); err != nil {
		return nil, err
	}
	if err := t.Check(); err != nil {
		return nil, err
	}
	return &t, nil
}

// IsTopN reports whether s, the JSON of a SQL window's function, is a
// TopN (it has an order) rather than an Aggregation.
func IsTopN(s string) bool {
	var probe struct {
		Order json.RawMessage `json:"order"`
	}
	return json.Unmarshal([]byte(s), &probe) == nil && probe.Order != nil
}

// String returns the JSON form.
func (t *TopN) String() string { return marshal(t) }

// Check verifies the ranking: keys and sort columns within the input, N
// at least 1.
func (t *TopN) Check() error {
	if t.Keys < 0 || t.Keys > len(t.Input) {
		return fmt.Errorf("keys: %d of a row of %d", t.Keys, len(t.Input))
	}
	if t.N < 1 {
		return fmt.Errorf("n: want at least 1, got %d", t.N)
	}
	switch t.Fn {
	case "", RowNumber, Rank, DenseRank:
	default:
		return fmt.Errorf("fn: want row_number, rank or dense_rank, got %q", t.Fn)
	}
	if len(t.Order) == 0 {
		return fmt.Errorf("order: a ranking needs at least one sort key")
	}
	for i, k := range t.Order {
		if k.Col < 0 || k.Col >= len(t.Input) {
			return fmt.Errorf("order[%d]: column %d of a row of %d", i, k.Col, len(t.Input))
		}
	}
	return nil
}

// Before reports whether row a ranks strictly before row b.
func (t *TopN) Before(a, b sqlrow.Row) bool {
	for _, k := range t.Order {
		x, y := a[k.Col], b[k.Col]
		var c int
		switch {
		case x.IsNull() && y.IsNull():
			continue
		case x.IsNull() || y.IsNull():
			// NB: NULL first or last whatever the direction.
			c = 1
			if x.IsNull() == k.NullsFirst {
				c = -1
			}
			return c < 0
		default:
			c = sqlexpr.Compare(x, y)
		}
		if k.Desc {
			c = -c
		}
		if c != 0 {
			return c < 0
		}
	}
	return false
}

// Insert places row in ranked, which holds at most N rows in order, and
// returns the new list and the rank (from 0) it took, or -1 when it ranks
// below the first N. The rows after it move down one; the last may fall
// out.
//
// Under RANK() and DENSE_RANK() the list holds the rows whose rank is at
// most N: the row goes in after those it ties with, and the rows whose
// rank it pushes past N fall out.
func (t *TopN) Insert(ranked []sqlrow.Row, row sqlrow.Row) ([]sqlrow.Row, int) {
	at := len(ranked)
	for at > 0 && t.Before(row, ranked[at-1]) {
		at--
	}
	if t.Fn == Rank || t.Fn == DenseRank {
		ranked = slices.Insert(ranked, at, row)
		n := t.kept(ranked)
		clear(ranked[n:])
		if at >= n {
			return ranked[:n], -1
		}
		return ranked[:n], at
	}
	if at >= t.N {
		return ranked, -1
	}
	if len(ranked) < t.N {
		ranked = append(ranked, nil)
	}
	copy(ranked[at+1:], ranked[at:len(ranked)-1])
	ranked[at] = row
	return ranked, at
}

// Retracts reports whether a sqlTopN of this ranking emits retractions:
// under RANK() and DENSE_RANK().
func (t *TopN) Retracts() bool { return t.Fn == Rank || t.Fn == DenseRank }

// Ranks appends to dst the rank of each row of ranked, which is in order:
// its ROW_NUMBER(), RANK() or DENSE_RANK() as Fn says.
func (t *TopN) Ranks(dst []int64, ranked []sqlrow.Row) []int64 {
	r := int64(0)
	for i := range ranked {
		switch {
		case i > 0 && (t.Fn == Rank || t.Fn == DenseRank) && !t.Before(ranked[i-1], ranked[i]):
			// NB: a tie keeps the rank before it.
		case t.Fn == DenseRank:
			r++
		default:
			r = int64(i + 1)
		}
		dst = append(dst, r)
	}
	return dst
}

// kept returns how many of ranked's first rows rank at most N.
func (t *TopN) kept(ranked []sqlrow.Row) int {
	r := int64(0)
	for i := range ranked {
		switch {
		case i > 0 && !t.Before(ranked[i-1], ranked[i]):
		case t.Fn == DenseRank:
			r++
		default:
			r = int64(i + 1)
		}
		if r > int64(t.N) {
			return i
		}
	}
	return len(ranked)
}
