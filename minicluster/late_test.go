package minicluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/tests/nexmark"
)

// TestLateRecordsGoToARoutedSideOutput runs q7 over bids with a few very
// late ones among them: those go to the window's late output, which the
// job routes through q1 (a map) into a sink of their own, and q7's windows
// hold every other bid.
func TestLateRecordsGoToARoutedSideOutput(t *testing.T) {
	dir := t.TempDir()
	mod := nexmarkModule(t, dir)
	type bid struct{ auction, price, ts int64 }
	var onTime []bid
	var text strings.Builder
	ts0 := int64(1_700_000_000_000)
	var late []string
	for i := range 60_000 {
		b := bid{auction: 1000 + int64(i%37), price: int64(100 + (i*7919)%20_000), ts: ts0 + int64(i)}
		if i > 0 && i%15_000 == 0 {
			// Half a minute late: its window fired some 5,000 bids ago.
			b.ts = ts0 + int64(i) - 30_000
			late = append(late, fmt.Sprintf("%d,7,%d,c,u,%d", b.auction, nexmark.Euros(b.price), b.ts))
		} else {
			onTime = append(onTime, b)
		}
		fmt.Fprintf(&text, "B,%d,7,%d,c,u,%d\n", b.auction, b.price, b.ts)
	}
	input := filepath.Join(dir, "bids.csv")
	if err := os.WriteFile(input, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	top := map[int64]bid{}
	for _, b := range onTime {
		end := b.ts - b.ts%10_000 + 10_000
		if b.price > top[end].price {
			top[end] = b
		}
	}
	var want []string
	for end, b := range top {
		want = append(want, fmt.Sprintf("%d,%d,7,%d", end, b.auction, b.price))
	}
	slices.Sort(want)
	slices.Sort(late)

	lateDir := filepath.Join(dir, "late")
	out := filepath.Join(dir, "out")
	spec := nexmarkOverFile(`
  - {type: keyBy, uid: by-window, key: function, module: nexmark, function: bid-window}
  - type: window
    uid: max-bid
    window: {type: tumbling, size: 10s}
    module: nexmark
    process: max-bid
    lateOutput: late
    sideOutputs:
      late:
        operators: [{type: flatMap, uid: euros, module: nexmark, function: q1}]
        sink: {type: file, path: ` + strconv.Quote(lateDir) + `}`)
	c, err := Start(context.Background(), Config{DataDir: filepath.Join(dir, "data"), TaskManagers: 1, Slots: 4, MetricsAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	}()
	id, err := c.Scheduler.Submit(context.Background(), api.Submission{
		Spec: []byte(spec), Params: map[string]string{"input": input, "output": out},
		Modules: map[string][]byte{"nexmark": mod},
	})
	if err != nil {
		t.Fatal(err)
	}
	if st := awaitEnd(t, c, id); st.State != api.JobFinished {
		t.Fatalf("job %s: %s", st.State, st.Message)
	}
	checkLines(t, out, want)
	if got := readLines(t, lateDir); !slices.Equal(got, late) {
		t.Errorf("late output %v, want %v", got, late)
	}
	m := scrape(t, c.MetricsAddr())
	if got := m.mustSum(t, "floe_operator_late_records_total", map[string]string{"job": id, "operator": "max-bid"}); got != float64(len(late)) {
		t.Errorf("floe_operator_late_records_total of the window = %v, want the %d late bids", got, len(late))
	}
}
