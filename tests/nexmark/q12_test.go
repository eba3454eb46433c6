package nexmark

import (
	"strings"
	"testing"
)

// TestCheckQ12 feeds the checker outputs that break each rule: a checker
// that passes everything would pass a broken q12.
func TestCheckQ12(t *testing.T) {
	totals := map[int64]int64{7: 3, 9: 1}
	tests := []struct {
		name, lines, want string
	}{
		{"good", "7,2,10000,20000\n7,1,20000,30000\n9,1,10000,20000", ""},
		{"a bid short", "7,2,10000,20000\n9,1,10000,20000", "bidder 7: the windows count 2 bids, the events hold 3"},
		{"a bid too many", "7,3,10000,20000\n9,2,10000,20000", "bidder 9: the windows count 2"},
		{"unknown bidder", "7,3,10000,20000\n9,1,10000,20000\n8,1,0,10000", "bidder 8: 1 bids counted"},
		{"not aligned", "7,3,10500,20500\n9,1,10000,20000", "is not 10000 ms aligned"},
		{"wrong size", "7,3,10000,30000\n9,1,10000,20000", "is not 10000 ms aligned"},
		{"twice", "7,2,10000,20000\n7,1,10000,20000\n9,1,10000,20000", "two lines for window 10000"},
		{"empty window", "7,3,10000,20000\n7,0,20000,30000\n9,1,10000,20000", "a window without bids"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := CheckQ12(strings.Split(tt.lines, "\n"), totals, 10000)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("want no error, got %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("want %q, got %v", tt.want, err)
			}
		})
	}
}
