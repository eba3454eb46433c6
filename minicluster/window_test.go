package minicluster

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/floe-stream/floe/internal/wasmbuild"
	"github.com/floe-stream/floe/scheduler/api"
)

// nexmarkOverFile is the operator part of a Nexmark query (udfs/nexmark) fed
// by a file of bid lines with event time in field 6.
func nexmarkOverFile(operators string) string {
	return `
name: windows
parallelism: 2
modules: {nexmark: nexmark.wasm}
params: {window_ms: "10000"}
source:
  type: file
  uid: bids
  parallelism: 1
  path: ${input}
  timestamps: {field: "csv:6", format: unix-ms}
  watermarks: {maxOutOfOrderness: 0s, interval: 1ms}
operators:
` + operators + `
sink:
  type: file
  uid: out
  path: ${output}
`
}

// windowQuery is a Nexmark query over bids and its brute-force result.
type windowQuery struct {
	name, operators string
	want            []string
}

// bidsAndQueries writes n generated bids to a file in dir, and returns it
// with q5 and q7 over them and their results computed directly.
func bidsAndQueries(t *testing.T, dir string, n int) (string, []windowQuery) {
	type bid struct{ auction, bidder, price, ts int64 }
	r := rand.New(rand.NewPCG(11, 13))
	var bids []bid
	var text strings.Builder
	ts := int64(1_700_000_000_000)
	for range n {
		ts += r.Int64N(3)
		b := bid{auction: 1000 + r.Int64N(40), bidder: r.Int64N(500), price: 100 + r.Int64N(20_000), ts: ts}
		bids = append(bids, b)
		fmt.Fprintf(&text, "B,%d,%d,%d,channel-1,https://x/1,%d\n", b.auction, b.bidder, b.price, b.ts)
	}
	input := filepath.Join(dir, "bids.csv")
	if err := os.WriteFile(input, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	// q5: per sliding window [s, s+10000) with s a multiple of 2000, the
	// auctions with the most bids.
	counts := map[int64]map[int64]int64{} // window end -> auction -> bids
	for _, b := range bids {
		last := b.ts - b.ts%2000
		for s := last - 8000; s <= last; s += 2000 {
			if counts[s+10000] == nil {
				counts[s+10000] = map[int64]int64{}
			}
			counts[s+10000][b.auction]++
		}
	}
	var q5 []string
	for end, byAuction := range counts {
		best := int64(0)
		for _, n := range byAuction {
			best = max(best, n)
		}
		for a, n := range byAuction {
			if n == best {
				q5 = append(q5, fmt.Sprintf("%d,%d,%d", end, a, n))
			}
		}
	}
	// q7: per tumbling window of 10000, the highest bids.
	top := map[int64][]bid{}
	for _, b := range bids {
		end := b.ts - b.ts%10000 + 10000
		switch {
		case len(top[end]) == 0 || b.price > top[end][0].price:
			top[end] = []bid{b}
		case b.price == top[end][0].price:
			top[end] = append(top[end], b)
		}
	}
	var q7 []string
	for end, bs := range top {
		for _, b := range bs {
			q7 = append(q7, fmt.Sprintf("%d,%d,%d,%d", end, b.auction, b.bidder, b.price))
		}
	}
	slices.Sort(q5)
	slices.Sort(q7)
	return input, []windowQuery{
		{"q5", `
  - {type: keyBy, uid: by-auction, key: function, module: nexmark, function: bid-auction}
  - {type: window, uid: count, window: {type: sliding, size: 10s, slide: 2s}, module: nexmark, aggregate: count}
  - {type: keyBy, uid: by-end, key: "csv:0"}
  - {type: window, uid: hot, window: {type: tumbling, size: 2s}, module: nexmark, process: hot-items}`, q5},
		{"q7", `
  - {type: keyBy, uid: by-window, key: function, module: nexmark, function: bid-window}
  - {type: window, uid: max-bid, window: {type: tumbling, size: 10s}, module: nexmark, process: max-bid}`, q7},
	}
}

// nexmarkModule builds udfs/nexmark.
func nexmarkModule(t *testing.T, dir string) []byte { return module(t, dir, "nexmark") }

// module builds the Go operator module udfs/<path> from source.
func module(t *testing.T, dir, path string) []byte {
	t.Helper()
	root, err := wasmbuild.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	wasm, err := wasmbuild.Go(filepath.Join(root, "udfs", path), dir)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(wasm)
	if err != nil {
		t.Fatal(err)
	}
	return mod
}

// TestWindowQueriesMatchBruteForce runs Nexmark q5 (sliding windows, then
// tumbling) and q7 (tumbling, process function) over generated bids and
// compares their output with results this test computes directly.
func TestWindowQueriesMatchBruteForce(t *testing.T) {
	dir := t.TempDir()
	mod := nexmarkModule(t, dir)
	input, queries := bidsAndQueries(t, dir, 60_000)
	for _, q := range queries {
		t.Run(q.name, func(t *testing.T) {
			out := filepath.Join(dir, "out-"+q.name)
			st, _ := runJob(t, Config{DataDir: filepath.Join(dir, "data-"+q.name), TaskManagers: 1, Slots: 6}, api.Submission{
				Spec:    []byte(nexmarkOverFile(q.operators)),
				Params:  map[string]string{"input": input, "output": out},
				Modules: map[string][]byte{"nexmark": mod},
			})
			if st.State != api.JobFinished {
				t.Fatalf("job %s: %s", st.State, st.Message)
			}
			checkLines(t, out, q.want)
		})
	}
}

// checkLines compares the sorted lines of the part files in dir with want.
func checkLines(t *testing.T, dir string, want []string) {
	t.Helper()
	if got := readLines(t, dir); !slices.Equal(got, want) {
		t.Errorf("%d lines, want %d; first difference: %s", len(got), len(want), firstDifference(got, want))
	}
}

// readLines returns the sorted lines of every part file in dir.
func readLines(t *testing.T, dir string) []string {
	t.Helper()
	parts, _ := filepath.Glob(filepath.Join(dir, "part-*"))
	var lines []string
	for _, p := range parts {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if l != "" {
				lines = append(lines, l)
			}
		}
	}
	slices.Sort(lines)
	return lines
}

func firstDifference(got, want []string) string {
	for i := 0; i < len(got) || i < len(want); i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			return fmt.Sprintf("line %d: got %q, want %q", i, g, w)
		}
	}
	return "none"
}
