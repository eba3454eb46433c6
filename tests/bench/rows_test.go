package main

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/scheduler/api"
	nexmarkref "github.com/floe-stream/floe/tests/nexmark"
)

func TestRescaleSpecParses(t *testing.T) {
	job, err := jobspec.Parse(rescaleSpec(1000), t.TempDir(), nil)
	if err != nil {
		t.Fatalf("%s\n%v", rescaleSpec(1000), err)
	}
	if job.Checkpoints == nil || job.Checkpoints.Interval != rescaleInterval {
		t.Errorf("checkpoints %+v, want every %s", job.Checkpoints, rescaleInterval)
	}
}

func TestReadRescaleTakesTheRescaleAfterSince(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	history := []api.Event{
		{Time: at(0), State: api.JobRunning, Message: "attempt 1 running"},
		{Time: at(10), State: api.JobWaiting, Message: "rescaling from 2/2 to 4/4 from checkpoint 3"},
		{Time: at(11), State: api.JobDeploying},
		{Time: at(900), State: api.JobRunning, Message: "rescaled to 4/4: 889ms downtime (1.2s since the request)"},
		{Time: at(2000), State: api.JobRunning, Message: "rescaling: taking checkpoint 9"},
		{Time: at(2100), State: api.JobWaiting, Message: "rescaling from 4/4 to 2/2 from checkpoint 9"},
		{Time: at(2102), State: api.JobDeploying},
	}
	ev, done, err := readRescale(history, at(5))
	if err != nil || !done {
		t.Fatalf("readRescale = %v, %v", done, err)
	}
	want := rescaleEvents{checkpoint: 3, stopped: at(10), deploying: at(11), down: 889 * time.Millisecond, total: 1200 * time.Millisecond}
	if ev != want {
		t.Errorf("got %+v, want %+v", ev, want)
	}
	if ev, done, err := readRescale(history, at(1500)); done || err != nil || ev.checkpoint != 9 {
		t.Errorf("the unfinished rescale: %+v, %v, %v", ev, done, err)
	}
}

func TestFirstAfterGapSkipsTheOldAttemptsLastFlush(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	w := &writeTimes{}
	w.arm()
	for _, ms := range []int{0, 5, 10, 12, 30, 700, 710, 720} {
		w.times = append(w.times, at(ms))
	}
	if got, err := w.firstAfterGap(at(8), at(20)); err != nil || !got.Equal(at(700)) {
		t.Errorf("first output %v, %v; want 700ms", got.Sub(t0), err)
	}
	if _, err := w.firstAfterGap(at(8), at(800)); err == nil || !strings.Contains(err.Error(), "cannot tell") {
		t.Errorf("a silence ending before the deployment: %v", err)
	}
}

func TestNativeNexmarkGivesTheReferenceLineCount(t *testing.T) {
	const n = 60_000
	evs, err := nexmarkref.Parse(nexmarkref.Generate(n, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	for name, q := range nexmarkQueries {
		r, err := timeNative(q, n)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := int64(len(q.ref(evs))); r.lines != want || want == 0 {
			t.Errorf("%s: %d lines, the reference %d", name, r.lines, want)
		}
	}
}

func TestFirstDifferentLine(t *testing.T) {
	for _, tc := range []struct {
		a, b []string
		want int
	}{
		{nil, nil, -1}, {[]string{"a"}, []string{"a"}, -1}, {[]string{"a", "b"}, []string{"a", "c"}, 1},
		{[]string{"a"}, []string{"a", "b"}, 1}, {[]string{""}, nil, 0},
	} {
		if got := firstDifferentLine(tc.a, tc.b); got != tc.want {
			t.Errorf("firstDifferentLine(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestPrintTableShowsFailedRows checks that a failed benchmark keeps its
// row, marked, with its reason, beside the rows that ran.
func TestPrintTableShowsFailedRows(t *testing.T) {
	var b strings.Builder
	printTable(&b, []Result{
		{Name: "q1-map", RecordsPerSec: 2e6, NativeRecordsPerSec: 4e6, Ratio: 0.5},
		{Name: "rescale-1m-keys", Error: "job still RUNNING after 3 minutes"},
	})
	for _, want := range []string{"q1-map", "0.50", "rescale-1m-keys: FAILED: job still RUNNING after 3 minutes"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
}

func TestFailoverSpecParses(t *testing.T) {
	job, err := jobspec.Parse(failoverSpec(1000), t.TempDir(), nil)
	if err != nil {
		t.Fatalf("%s\n%v", failoverSpec(1000), err)
	}
	if job.Checkpoints == nil || job.Checkpoints.Interval != failoverInterval {
		t.Errorf("checkpoints %+v, want every %s", job.Checkpoints, failoverInterval)
	}
}

func TestOutputAroundTakesTheLongestSilenceOfTheFailover(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	writes := func(ms ...int) []sinkWrite {
		var ws []sinkWrite
		for _, m := range ms {
			ws = append(ws, sinkWrite{at(m), 10})
		}
		return ws
	}
	// Out of order, as two pipes copied concurrently deliver them; a long
	// silence before the failover (500ms) and after it (900ms) is not its
	// gap, the one across the kill at 1000 (980 -> 1300) is.
	ws := writes(0, 10, 20, 520, 530, 980, 1300, 1310, 1600, 1900, 2000, 2900, 2910)
	ws[3], ws[8] = ws[8], ws[3]
	got, err := outputAround(ws, at(1000), at(2000))
	if err != nil {
		t.Fatal(err)
	}
	// Five writes of 10 lines after the first in 1s before, five in the 1s
	// of the failover.
	want := output{longest: 320 * time.Millisecond, before: 500 * time.Millisecond, rateBefore: 50, rateAcross: 50}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	// A silence that spans the whole failover is its gap.
	if got, err := outputAround(writes(0, 10, 20, 2500), at(1000), at(2000)); err != nil || got.longest != 2480*time.Millisecond || got.rateAcross != 0 {
		t.Errorf("a silence across the failover: %+v, %v", got, err)
	}
	if _, err := outputAround(writes(0, 10, 1500), at(1000), at(2000)); err == nil {
		t.Error("no output after the failover: no error")
	}
	if _, err := outputAround(writes(1500, 2500), at(1000), at(2000)); err == nil {
		t.Error("no output before the failover: no error")
	}
}

func TestFirstCompletedAfterSkipsFailedAndEarlierCheckpoints(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	at := func(ms int) *time.Time { x := t0.Add(time.Duration(ms) * time.Millisecond); return &x }
	cps := []api.CheckpointStatus{
		{ID: 9, Status: api.CheckpointCompleted, CompletedAt: at(3000)},
		{ID: 8, Status: api.CheckpointCompleted, CompletedAt: at(2000)},
		{ID: 7, Status: api.CheckpointFailed},
		{ID: 6, Status: api.CheckpointCompleted, CompletedAt: at(500)},
	}
	if cp, ok := firstCompletedAfter(cps, *at(1000)); !ok || cp.ID != 8 {
		t.Errorf("got %d, %t; want checkpoint 8", cp.ID, ok)
	}
	if cp, ok := firstCompletedAfter(cps, *at(3000)); ok {
		t.Errorf("got checkpoint %d, want none", cp.ID)
	}
}

func TestAdoptedAtNamesTheAttemptAfterTheKill(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 1, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	h := []api.Event{
		{Time: at(0), Message: "attempt 1 running"},
		{Time: at(100), Message: "attempt 2 adopted after a scheduler failover"},
		{Time: at(900), Message: "attempt 2 adopted after a scheduler failover"},
	}
	if _, ok := adoptedAt(h, 1, at(0)); ok {
		t.Error("attempt 1 adopted, want not")
	}
	if got, ok := adoptedAt(h, 2, at(500)); !ok || !got.Equal(at(900)) {
		t.Errorf("attempt 2 adopted at %v, %t; want 900ms, the adoption after the kill", got.Sub(t0), ok)
	}
}

func TestScaleResultComparesTheLargestWithTheSmallest(t *testing.T) {
	r := scaleResult([]scaleRun{
		{Keys: 1_000_000, RecordsPerSec: 200_000, CPUPerRecordNs: 1000, PeakRSSBytes: 400 << 20, StateBytes: 14 << 20},
		{Keys: 20_000_000, RecordsPerSec: 150_000, CPUPerRecordNs: 1250, PeakRSSBytes: 500 << 20, StateBytes: 280 << 20},
	})
	if r.Name != "keyed-count-scale" || r.Ratio != 0.75 || r.Baseline != "1M keys" || r.Extra["cpu_ratio"] != 0.8 {
		t.Errorf("scaleResult = %+v", r)
	}
	if r.Extra["peak_rss_bytes_20M"] != int64(500<<20) || !strings.Contains(r.Summary, "20M/1M rate ratio 0.75") {
		t.Errorf("scaleResult extras %v, summary %q", r.Extra, r.Summary)
	}
}

func TestParseCounts(t *testing.T) {
	if got, err := parseCounts("1000000, 5000000"); err != nil || len(got) != 2 || got[1] != 5_000_000 {
		t.Errorf("parseCounts = %v, %v", got, err)
	}
	for _, bad := range []string{"", "0", "1,x"} {
		if _, err := parseCounts(bad); err == nil {
			t.Errorf("parseCounts(%q) succeeded", bad)
		}
	}
}

// TestCountDistinctCheckpointsAndRestores runs a small keyed-count-scale
// pass in process: the Wasm count answers every record, checkpoints every
// batch, and a restore of the latest checkpoint into a fresh store holds
// every key.
func TestCountDistinctCheckpointsAndRestores(t *testing.T) {
	e := envFor(t, false)
	ckDir := t.TempDir()
	const n = 3*batchSize + 5
	// NB: scaleCheckpointEvery is larger than n; count with a checkpoint
	// every batch through the same code.
	op, err := openCountWasm(e)(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	st := op.(*wasmOperator).state
	if err := st.backend.TrackSizes(); err != nil {
		t.Fatal(errors.Join(err, op.Close()))
	}
	st.backend.TrackChanges()
	ck := &checkpointer{state: st.backend, dir: ckDir}
	err = countDistinct(context.Background(), op, n, batchSize, ck.checkpoint)
	if err == nil {
		err = ck.checkpoint()
	}
	chainBytes, lastBytes, ckErr := ck.finish()
	if err := errors.Join(err, ckErr, op.Close()); err != nil {
		t.Fatal(err)
	}
	// A full snapshot, then a delta after each of the next batches and
	// at the end.
	if len(ck.chain) != 4 || chainBytes <= lastBytes || lastBytes == 0 {
		t.Errorf("chain %+v: %d bytes, last %d", ck.chain, chainBytes, lastBytes)
	}
	t.Setenv("TMPDIR", t.TempDir())
	r, err := restoreLatest(ckDir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Keys != n {
		t.Errorf("restored %d keys, want %d", r.Keys, n)
	}
	if rss, err := peakRSS(); err != nil || rss <= 0 {
		t.Errorf("peakRSS = %d, %v", rss, err)
	}
}

// TestSQLOutputAppliesTheChangelog checks the rows a SQL row counts: an
// append-only output's lines, or the table a changelog leaves, keyed by
// its first column, a later upsert replacing a row and a delete removing it.
func TestSQLOutputAppliesTheChangelog(t *testing.T) {
	lines := func(s ...string) [][]byte {
		var b [][]byte
		for _, l := range s {
			b = append(b, []byte(l))
		}
		return b
	}
	for _, tc := range []struct {
		changelog bool
		parts     [][][]byte
		want      []string
	}{
		{false, [][][]byte{lines("b,2", "a,1"), lines("a,1")}, []string{"a,1", "a,1", "b,2"}},
		{true, [][][]byte{lines("upsert,10,5.0", "upsert,11,4.0", "upsert,10,8.5"), lines("upsert,12,1.0", "delete,12,1.0")},
			[]string{"10,8.5", "11,4.0"}},
	} {
		o := sqlOutput{changelog: tc.changelog}
		for _, p := range tc.parts {
			o.keep(p)
		}
		if got := o.rows(); o.err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("changelog %t: rows %q, %v; want %q", tc.changelog, got, o.err, tc.want)
		}
	}
	o := sqlOutput{changelog: true}
	if o.keep(lines("insert,1,2")); o.err == nil {
		t.Error("an insert in an upsert changelog: no error")
	}
}
