package sqlprog

import "fmt"

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
	if j.Until < 0 || (j.Until > 0 && j.Window > 0) {
		return nil, fmt.Errorf("until: a value of the left row of an interval join, got %d", j.Until)
	}
	if j.Window < 0 {
		return nil, fmt.Errorf("window: a window's size is positive, got %d", j.Window)
	}
	return &j, nil
}

// String returns the JSON form.
func (j *JoinRows) String() string { return marshal(j) }
