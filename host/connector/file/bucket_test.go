package file

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/record"
)

func TestBucketNamesEventTimeInUTC(t *testing.T) {
	at := time.Date(2024, 1, 1, 10, 7, 31, 500e6, time.UTC).UnixMilli()
	tests := []struct {
		layout string
		ts     int64
		want   string
		err    error
	}{
		{"dt=2006-01-02/hm=15:04", at, "dt=2024-01-01/hm=10:07", nil},
		{"2006-01-02/15", at, "2024-01-01/10", nil},
		{"2006/01/02/15", at - (10*3600+7*60+31)*1000 - 500 - 1, "2023/12/31/23", nil},
		{"2006-01-02T15:04:05.000", at, "2024-01-01T10:07:31.500", nil},
		{"all", at, "all", nil},
		{"", at, "", nil},
		{"", record.NoTimestamp, "", nil},
		{"2006", record.NoTimestamp, "", errNoEventTime},
	}
	for _, tt := range tests {
		b := bucketer{layout: tt.layout}
		// Twice: the second answer comes from the remembered timestamp.
		for range 2 {
			got, err := b.bucket(tt.ts)
			if got != tt.want || !errors.Is(err, tt.err) {
				t.Errorf("layout %q at %d: %q, %v; want %q, %v", tt.layout, tt.ts, got, err, tt.want, tt.err)
			}
		}
	}
}

func TestCheckBucketFormat(t *testing.T) {
	tests := []struct {
		layout string
		ok     bool
	}{
		{"dt=2006-01-02/hm=15:04", true},
		{"2006/01/02", true},
		{"all", true},
		{"", false},
		{"/2006", false},
		{"../2006", false},
		{"2006/../x", false},
		{"2006//01", false},
		{"2006/", false},
		{".2006", false},
		{"2006/.hidden", false},
		{".", false},
		{`2006\01`, false},
	}
	for _, tt := range tests {
		if err := CheckBucketFormat(tt.layout); (err == nil) != tt.ok {
			t.Errorf("CheckBucketFormat(%q) = %v, want ok %v", tt.layout, err, tt.ok)
		}
	}
}

func TestLRUClosesTheLeastRecentlyWritten(t *testing.T) {
	l := newLRU[int](2)
	l.add("a", 1)
	l.add("b", 2)
	if !l.full() {
		t.Fatal("two of two open is not full")
	}
	l.get("a")
	if name, v := l.oldest(); name != "b" || v != 2 {
		t.Fatalf("oldest after using a = %s %d, want b 2", name, v)
	}
	l.add("c", 3)
	if name, _ := l.oldest(); name != "a" {
		t.Fatalf("oldest = %s, want a", name)
	}
}

// expectedBucket names the bucket of the layout "2006-01-02/15" without
// the time package's layouts.
func expectedBucket(ts int64) string {
	t := time.UnixMilli(ts).UTC()
	return fmt.Sprintf("%04d-%02d-%02d/%02d", t.Year(), t.Month(), t.Day(), t.Hour())
}

// bucketLines returns, for every committed part file below dir, its lines
// keyed by the directory that holds it; uncommitted files are skipped.
func bucketLines(t *testing.T, dir string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasPrefix(d.Name(), "part-") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, filepath.Dir(path))
		out[rel] = append(out[rel], strings.Fields(string(b))...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBucketedTransactionalSinkAcrossCrashes drives the transactional sink
// with buckets as a task would, with random checkpoints, lost commit
// notifications, checkpoints that never complete and crashes followed by
// restores of the last completed checkpoint (the input replayed from its
// position). At most two buckets are open, so files are closed early too.
// At the end every record is in the bucket of its hour, exactly once.
func TestBucketedTransactionalSinkAcrossCrashes(t *testing.T) {
	for seed := range uint64(10) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 7))
			checkBucketedRun(t, r)
		})
	}
}

func checkBucketedRun(t *testing.T, r *rand.Rand) {
	dir := t.TempDir()
	cfg := SinkConfig{Path: dir, Buckets: Buckets{Format: "2006-01-02/15", MaxOpen: 2}}
	split := connector.SplitInfo{Subtask: 1, Parallelism: 2}
	// Records out of time order over about ten hours, so that buckets
	// are left and come back.
	base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	n := 120 + r.IntN(200)
	ts := make([]int64, n)
	for i := range ts {
		ts[i] = base + int64(i)*3*60*1000 + r.Int64N(5*3600*1000) - 2*3600*1000
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	s, err := OpenTransactionalSink(cfg, split, false)
	must(err)
	type checkpoint struct {
		pos   int
		state []byte
	}
	var done *checkpoint // the last completed checkpoint
	var id int64
	pos := 0
	for pos < n {
		k := min(n-pos, 1+r.IntN(20))
		var b record.Batch
		for i := pos; i < pos+k; i++ {
			b.Append(nil, []byte(fmt.Sprintf("r%d", i)), ts[i])
		}
		must(s.Write(&b))
		pos += k
		switch r.IntN(6) {
		case 0, 1: // a checkpoint that completes; its notification may be lost
			id++
			st, err := s.PreCommit(id)
			must(err)
			done = &checkpoint{pos, st}
			if r.IntN(3) > 0 {
				must(s.Commit(id))
			}
		case 2: // a checkpoint that never completes
			id++
			_, err := s.PreCommit(id)
			must(err)
		case 3: // a crash: restore the last completed checkpoint
			s.Close()
			s, err = OpenTransactionalSink(cfg, split, done != nil)
			must(err)
			pos = 0
			if done != nil {
				must(s.(*txSink).Recover([][]byte{done.state}))
				pos = done.pos
			}
		}
	}
	id++
	_, err = s.PreCommit(id)
	must(err)
	must(s.Commit(id))
	must(s.Close())

	want := map[string][]string{}
	for i := range ts {
		want[expectedBucket(ts[i])] = append(want[expectedBucket(ts[i])], fmt.Sprintf("r%d", i))
	}
	got := bucketLines(t, dir)
	for b := range got {
		slices.Sort(got[b])
	}
	for b := range want {
		slices.Sort(want[b])
	}
	if len(want) < 5 {
		t.Fatalf("only %d buckets: the test would not close any", len(want))
	}
	for b := range want {
		if !slices.Equal(got[b], want[b]) {
			t.Errorf("bucket %s holds %d lines %v, want %d %v", b, len(got[b]), got[b], len(want[b]), want[b])
		}
	}
	for b := range got {
		if _, ok := want[b]; !ok {
			t.Errorf("unexpected bucket %s: %v", b, got[b])
		}
	}
	hidden := 0
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, _ error) error {
		if strings.HasPrefix(d.Name(), ".part-") {
			hidden++
		}
		return nil
	})
	if hidden != 0 {
		t.Errorf("%d uncommitted files left behind", hidden)
	}
}

// TestBucketedSinkWithoutCheckpoints writes records that leave buckets and
// come back to them with one bucket open at a time: a bucket's part file
// is appended to when reopened, and truncated by the next run.
func TestBucketedSinkWithoutCheckpoints(t *testing.T) {
	dir := t.TempDir()
	cfg := SinkConfig{Path: dir, Buckets: Buckets{Format: "2006-01-02/15", MaxOpen: 1}}
	hour := int64(3600 * 1000)
	base := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	run := func(hours []int64) map[string][]string {
		s, err := OpenSink(cfg, connector.SplitInfo{Subtask: 0, Parallelism: 1})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string][]string{}
		for i, h := range hours {
			var b record.Batch
			v := fmt.Sprintf("r%d", i)
			b.Append(nil, []byte(v), base+h*hour+int64(i))
			if err := s.Write(&b); err != nil {
				t.Fatal(err)
			}
			want[expectedBucket(base+h*hour)] = append(want[expectedBucket(base+h*hour)], v)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		return want
	}
	check := func(want map[string][]string) {
		t.Helper()
		got := bucketLines(t, dir)
		for b, lines := range want {
			if !slices.Equal(got[b], lines) {
				t.Errorf("bucket %s holds %v, want %v", b, got[b], lines)
			}
		}
	}
	check(run([]int64{0, 1, 0, 2, 1, 0}))
	// A second run truncates the buckets it writes.
	check(run([]int64{1, 1}))
}

func TestBucketedSinkRefusesRecordsWithoutTime(t *testing.T) {
	cfg := SinkConfig{Path: t.TempDir(), Buckets: Buckets{Format: "2006"}}
	split := connector.SplitInfo{Subtask: 0, Parallelism: 1}
	plain, err := OpenSink(cfg, split)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	tx, err := OpenTransactionalSink(cfg, split, false)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Close()
	for name, s := range map[string]connector.Sink{"plain": plain, "transactional": tx} {
		if err := s.Write(lines("x")); !errors.Is(err, errNoEventTime) {
			t.Errorf("%s sink: Write of a record without time = %v, want %v", name, err, errNoEventTime)
		}
	}
}
