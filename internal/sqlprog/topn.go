package sqlprog

import (
	"fmt"

	"github.com/floe-stream/floe/internal/sqlexpr"
	"github.com/floe-stream/floe/internal/sqlrow"
)

// TopN is a sqlTopN operator's ranking: per key (the first Keys values of
// each input row), the N first rows in Order, numbered from 1 as SQL's
// ROW_NUMBER() OVER (PARTITION BY keys ORDER BY ...) numbers them. A row
// that ties with one already ranked goes after it, so the first to arrive
// keeps its place: deduplication is a TopN of 1 ordered by event time.
type TopN struct {
	// Input is the row's schema: the keys, then anything.
	Input []sqlrow.Type `json:"input"`
	Keys  int           `json:"keys"`
	Order []SortKey     `json:"order"`
	N     int           `json:"n"`
}

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
func (t *TopN) Insert(ranked []sqlrow.Row, row sqlrow.Row) ([]sqlrow.Row, int) {
	at := len(ranked)
	for at > 0 && t.Before(row, ranked[at-1]) {
		at--
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
