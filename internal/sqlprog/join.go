package sqlprog

import (
	"fmt"

	"github.com/floe-stream/floe/internal/sqlrow"
)

// JoinRows is how a SQL join (an intervalJoin or a windowJoin whose spec
// names sql:) makes one row of each joined pair: the left row's values,
// then the right row's, or Right NULLs for a left outer join's left row
// that found no match; a window join then appends window_start and
// window_end, computed from the pair's timestamp (the window's last
// instant) and Window, the window's size. Rows are sqlrow encodings, whose
// values delimit themselves, so the joined row is the two rows one after
// the other.
type JoinRows struct {
	// Right is the number of values of a right row.
	Right int `json:"right"`
	// Window is the size in ms of a window join's tumbling windows, whose
	// bounds end the joined row; 0 for an interval join, whose rows end
	// with the right row.
	Window int64 `json:"window,omitempty"`
	// Session makes a session window join's rows end with window_start
	// and window_end too, the bounds of the pair's session.
	Session bool `json:"session,omitempty"`
	// Left is the number of values of a left row, which a right outer
	// join writes as NULLs for a right row that found no match.
	Left int `json:"left,omitempty"`
	// Outer is "left", "right" or "full" for an outer interval join, which
	// keeps the rows of those sides that match nothing, with NULLs for
	// the other side's values (host/join.Outer); "" for an inner one.
	Outer string `json:"outer,omitempty"`
	// Changelog makes an outer join retracting: each row is emitted alone
	// as it arrives and retracted by its first match, and every joined
	// row ends with a BIGINT, 1 for a retraction and 0 else, which a
	// Program with Retracts reads.
	Changelog bool `json:"changelog,omitempty"`
	// Until, in an interval join, is the value (counting from 1) of the
	// left row that bounds the right row's time from above for that row
	// (b.ts BETWEEN a.ts AND a.expires); 0 for none.
	Until int `json:"until,omitempty"`
}

// ParseJoinRows reads a JoinRows from its JSON form and checks it.
func ParseJoinRows(s string) (*JoinRows, error) {
	var j JoinRows
	if err := strictJSON(s, &j); err != nil {
		return nil, err
	}
	if j.Right < 1 {
		return nil, fmt.Errorf("right: a right row has at least one value, got %d", j.Right)
	}
	if j.Until < 0 || (j.Until > 0 && (j.Window > 0 || j.Session)) {
		return nil, fmt.Errorf("until: a value of the left row of an interval join, got %d", j.Until)
	}
	if j.Window < 0 {
		return nil, fmt.Errorf("window: a window's size is positive, got %d", j.Window)
	}
	if err := j.checkOuter(); err != nil {
		return nil, err
	}
	return &j, nil
}

// String returns the JSON form.
func (j *JoinRows) String() string { return marshal(j) }

func (j *JoinRows) checkOuter() error {
	switch {
	case j.Outer != "" && j.Outer != "left" && j.Outer != "right" && j.Outer != "full":
		return fmt.Errorf("outer: left, right or full, not %q", j.Outer)
	case j.Session && j.Window > 0:
		return fmt.Errorf("session: a session has no size (window: %d)", j.Window)
	case j.Outer != "" && (j.Window > 0 || j.Session):
		return fmt.Errorf("outer: only for an interval join (a window join's kind says leftOuter)")
	case (j.Outer == "right" || j.Outer == "full") && j.Left < 1:
		return fmt.Errorf("left: a right or full outer join needs the number of a left row's values, got %d", j.Left)
	case j.Changelog && j.Outer == "":
		return fmt.Errorf("changelog: only an outer join retracts")
	}
	return nil
}

// checkRetracts checks that a retracting program writes text and reads
// rows ending with the retraction flag.
func (p *Program) checkRetracts() error {
	switch {
	case !p.Retracts:
		return nil
	case p.Changelog:
		return fmt.Errorf("retracts: a program has changelog or retracts, not both")
	case p.Out == FormatRow:
		return fmt.Errorf("retracts: only for text records (out: csv or json)")
	case len(p.Columns) == 0 || p.Columns[len(p.Columns)-1].Type != sqlrow.BigInt:
		return fmt.Errorf("retracts: the last input column is the BIGINT retraction flag")
	}
	return nil
}

// retractOp is the op of a retracting join's row.
func retractOp(in sqlrow.Row) string {
	if v := in[len(in)-1]; v.T == sqlrow.BigInt && v.I == 1 {
		return OpDelete
	}
	return OpInsert
}
