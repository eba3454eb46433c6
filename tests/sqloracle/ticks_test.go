package sqloracle

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The third table, whose event time is a TIMESTAMP, declared with Flink's
// WATERMARK FOR.
var ticksColumns = [][2]string{{"sym", "VARCHAR"}, {"price", "BIGINT"}, {"ts", "TIMESTAMP"}}

// ticksFile returns the ticks table that goes with the bids file, writing
// it first if it is not there: 1500 rows, at growing by 2.3 s a row from
// 2026-03-30 22:00 with up to 700 ms of disorder (under the watermark's
// 1 s), so the rows cross minutes, hours, a day and a month. The time is
// written with as many fraction digits as it needs (none for a whole
// second), as both engines read it. Its seed is fixed.
func ticksFile(t *testing.T, bids string) string {
	path := filepath.Join(filepath.Dir(bids), "ticks.csv")
	if _, err := os.Stat(path); err == nil {
		return path
	}
	r := rand.New(rand.NewPCG(29, 2026))
	syms := []string{"ACME", "INIT", "GLOB"}
	start := time.Date(2026, 3, 31, 8, 0, 0, 0, time.UTC).UnixMilli()
	var b bytes.Buffer
	for i := range 1500 {
		at := start + int64(i)*47300 + r.Int64N(700)
		if i%10 == 0 {
			at -= at % 1000
		}
		fmt.Fprintf(&b, "%s,%d,%s\n", syms[r.IntN(len(syms))], 1+r.IntN(500), time.UnixMilli(at).UTC().Format("2006-01-02 15:04:05.999"))
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// ticksDDL declares the ticks table in a Floe script.
func ticksDDL(t *testing.T, bids string) string {
	return fmt.Sprintf("CREATE TABLE ticks (sym VARCHAR, price BIGINT, ts TIMESTAMP(3),\n"+
		"  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (connector = 'file', path = '%s');\n", ticksFile(t, bids))
}
