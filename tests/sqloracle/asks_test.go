package sqloracle

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The second table, which joins read with bids.
var asksColumns = [][2]string{{"auction", "BIGINT"}, {"seller", "BIGINT"}, {"price", "BIGINT"}, {"ts", "BIGINT"}}

// asksFile returns the asks table that goes with the bids file, writing it
// first if it is not there: 2000 rows, ts growing by 53 ms a row with up
// to 400 ms of disorder (under the watermark's 1 s, so no row is late),
// auctions 1-25 (some bids' auctions have no asks and the reverse), about
// one price in 20 NULL. Its seed is fixed, so every call writes the same
// rows.
func asksFile(t *testing.T, bids string) string {
	path := filepath.Join(filepath.Dir(bids), "asks.csv")
	if _, err := os.Stat(path); err == nil {
		return path
	}
	r := rand.New(rand.NewPCG(23, 2026))
	var b bytes.Buffer
	const start = 1_700_000_000_000
	for i := range 2000 {
		price := strconv.Itoa(1 + r.IntN(1000))
		if r.IntN(20) == 0 {
			price = ""
		}
		fmt.Fprintf(&b, "%d,%d,%s,%d\n", 1+r.IntN(25), 1+r.IntN(30), price, start+int64(i)*53+r.Int64N(400))
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// asksDDL declares the asks table in a Floe script.
func asksDDL(t *testing.T, bids string) string {
	cols := make([]string, len(asksColumns))
	for i, c := range asksColumns {
		cols[i] = c[0] + " " + c[1]
	}
	return fmt.Sprintf("CREATE TABLE asks (%s) WITH (connector = 'file', path = '%s', watermark = 'ts - 1s');\n",
		strings.Join(cols, ", "), asksFile(t, bids))
}
