package sqlc

import (
	"strings"
	"testing"
)

func TestGroupOfGroupErrors(t *testing.T) {
	head := bidsTable + "CREATE TABLE o (a BIGINT, b BIGINT) WITH (connector = 'stdout');\n"
	inner := "(SELECT auction, COUNT(*) AS n FROM bids GROUP BY auction)"
	tests := []struct{ name, query, want string }{
		{"max over retractions", "INSERT INTO o SELECT n, MAX(auction) FROM " + inner + " GROUP BY n;",
			"max cannot take a row out again"},
		{"inner having", "INSERT INTO o SELECT n, COUNT(*) FROM (SELECT auction, COUNT(*) AS n FROM bids GROUP BY auction HAVING COUNT(*) > 1) GROUP BY n;",
			"takes no HAVING or DISTINCT in the inner one"},
		{"inner window", "INSERT INTO o SELECT n, COUNT(*) FROM (SELECT auction, COUNT(*) AS n FROM bids GROUP BY auction, TUMBLE(ts, INTERVAL '1' SECOND)) GROUP BY n;",
			"a GROUP BY over a windowed GROUP BY is not supported yet"},
		{"unnamed inner column", "INSERT INTO o SELECT auction, COUNT(*) FROM (SELECT auction, COUNT(*) FROM bids GROUP BY auction) GROUP BY auction;",
			"name this column with AS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile(head+tt.query, Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
		})
	}
}
