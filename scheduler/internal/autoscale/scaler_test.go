package autoscale

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// sim is a two-stage job (a rate-limited source, a keyed count) run on a
// fake clock: each second every subtask heartbeats the counters a simple
// model gives, and the Scaler decides; a decision that changes something
// is applied at once as a new attempt. Nothing here reads the clock.
type sim struct {
	// rate is the source's configured rate at a time since the start.
	rate func(t time.Duration) float64
	// capacity is the records per busy second of one count subtask, and
	// of one source subtask.
	capacity, sourceCapacity float64
	// hot is the share of the records in one key group, which lands on
	// count subtask 0.
	hot float64
	// overhead is the busy share each count subtask spends per second
	// whatever its records (per-batch and per-wake-up cost).
	overhead float64

	par       [2]int
	attempt   int
	counters  map[[2]int]*Counters
	last      time.Time
	decisions []Decision
	// changes records (time, stage 1's new parallelism) per rescale.
	changes []string
}

var simEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func (s *sim) run(t *testing.T, cfg Config, until time.Duration) {
	t.Helper()
	var sc Scaler
	s.par = [2]int{1, 1}
	s.counters = map[[2]int]*Counters{}
	for at := time.Duration(0); at <= until; at += time.Second {
		now := simEpoch.Add(at)
		s.heartbeat(&sc, at, now)
		d, ok, err := sc.Tick(now, s.job(cfg))
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			continue
		}
		s.decisions = append(s.decisions, d)
		if d.Change {
			for _, v := range d.Vertices {
				s.par[v.ID] = v.New
			}
			s.attempt++
			s.counters = map[[2]int]*Counters{}
			s.last = now
			s.changes = append(s.changes, fmt.Sprintf("%s:%d", at, s.par[1]))
		}
	}
}

func (s *sim) job(cfg Config) Job {
	return Job{Config: cfg, Interval: 10 * time.Second, Cluster: Cluster{FreeSlots: 100}, LastRescale: s.last,
		Vertices: []Vertex{
			{ID: 0, Name: "source", Parallelism: s.par[0], KeyGroups: 128, Source: true},
			{ID: 1, Name: "count", Parallelism: s.par[1], KeyGroups: 128, Inputs: []int{0}},
		}}
}

// heartbeat advances every subtask's counters by one second of the
// model: the count subtasks each get an even share of the records but
// subtask 0, which also gets the hot key group; the busiest one caps the
// flow, and the source is back-pressured by the rest.
func (s *sim) heartbeat(sc *Scaler, at time.Duration, now time.Time) {
	rate := s.rate(at)
	pk := float64(s.par[1])
	share0 := s.hot + (1-s.hot)/pk
	flow := min(rate, s.capacity*(1-s.overhead)/share0)
	for sub := 0; sub < s.par[0]; sub++ {
		n := flow / float64(s.par[0])
		busy := n / s.sourceCapacity
		bp := 0.0
		if flow < rate {
			bp = 1 - busy
		}
		s.observe(sc, now, 0, sub, n, n, busy, bp, rate/float64(s.par[0]))
	}
	for sub := 0; sub < s.par[1]; sub++ {
		share := (1 - s.hot) / pk
		if sub == 0 {
			share = share0
		}
		n := flow * share
		s.observe(sc, now, 1, sub, n, n, s.overhead+n/s.capacity, 0, 0)
	}
}

func (s *sim) observe(sc *Scaler, now time.Time, v, sub int, in, out, busy, bp, genRate float64) {
	c := s.counters[[2]int{v, sub}]
	if c == nil {
		c = &Counters{}
		s.counters[[2]int{v, sub}] = c
	}
	c.At, c.RecordsIn, c.RecordsOut = now, c.RecordsIn+int64(in), c.RecordsOut+int64(out)
	c.BackPressure, c.Idle, c.GeneratorRate = bp, max(0, 1-busy-bp), genRate
	sc.Observe(s.attempt, v, sub, *c)
}

// steps is a rate schedule: rate[i] from i × every on.
func steps(every time.Duration, rates ...float64) func(time.Duration) float64 {
	return func(t time.Duration) float64 { return rates[min(int(t/every), len(rates)-1)] }
}

// TestScalerFollowsARateStep runs a keyed count through a rate step
// 2000 → 20000 → 2000 rec/s with count subtasks of 3000 rec/s: it must
// scale up within 3 decisions of the step (to ceil(20000 / (3000 × 0.7))
// = 10), back down to 1 a stabilization after the step down, and change
// direction no more than once per step.
func TestScalerFollowsARateStep(t *testing.T) {
	s := &sim{rate: steps(5*time.Minute, 2000, 20000, 2000), capacity: 3000, sourceCapacity: 100000}
	cfg := Config{Enabled: true, TargetUtilization: 0.7, Stabilization: time.Minute, Cooldown: 30 * time.Second}
	s.run(t, cfg, 15*time.Minute)
	// NB: the heartbeat at 5m0s is the first to report the new rate, and
	// the decision at 5m0s the first to see it. A scale down waits until
	// every decision over the stabilization (1m) has asked for it.
	if got, want := strings.Join(s.changes, " "), "5m0s:10 11m0s:1"; got != want {
		t.Errorf("rescales %s, want %s", got, want)
	}
	if n := decisionsToChange(s.decisions, 5*time.Minute); n > 3 {
		t.Errorf("the step up took %d decisions, want at most 3", n)
	}
	if n := decisionsToChange(s.decisions, 10*time.Minute); n > 7 {
		t.Errorf("the step down took %d decisions, want at most 7 (a minute of them, then the one that acts)", n)
	}
	for _, d := range s.decisions {
		if d.SlotsMissing != 0 {
			t.Errorf("%s: slots missing: %s", d.At.Sub(simEpoch), d.Reason)
		}
	}
}

// TestScalerScalesALightLoadDown: count subtasks of 10000 rec/s that
// spend 0.1 of every second on per-batch cost, target 0.5, through the
// step 2000 → 20000 → 2000. The first decision to see the step computes
// ceil(20000 / (6791 × 0.5)) = 6 (the minute's records over its busy
// seconds: 127000 / 18.7). At 6 each subtask runs 3333 rec/s at busy
// 0.433, a true rate of 7692, which also asks for 6. Back at 2000, each
// runs 333 rec/s at busy 0.133: its own true rate, 2500, would ask for
// ceil(2000 / 1250) = 2, and only at 2 for 1 (busy 0.2, true rate 5000),
// a second rescale down. Taken at the 3333 rec/s measured in the high
// step, the true rate 7692 asks for 1 at once.
func TestScalerScalesALightLoadDown(t *testing.T) {
	s := &sim{rate: steps(5*time.Minute, 2000, 20000, 2000), capacity: 10000, overhead: 0.1, sourceCapacity: 100000}
	cfg := Config{Enabled: true, TargetUtilization: 0.5, Stabilization: time.Minute, Cooldown: 30 * time.Second}
	s.run(t, cfg, 15*time.Minute)
	if got, want := strings.Join(s.changes, " "), "5m0s:6 11m0s:1"; got != want {
		t.Errorf("rescales %s, want %s", got, want)
	}
}

// decisionsToChange counts the decisions from step on up to the first
// that changes a parallelism, that one included; a large number if none
// does.
func decisionsToChange(ds []Decision, step time.Duration) int {
	n := 0
	for _, d := range ds {
		if d.At.Sub(simEpoch) < step {
			continue
		}
		n++
		if d.Change {
			return n
		}
	}
	return 1 << 30
}

// TestScalerReportsSkew: one key group gets half of the records. At
// parallelism 10 the busiest subtask keeps that half whole, 10000 rec/s
// where one subtask takes 2100 at the target, so scaling further does
// not help: the scaler stays at 10 and says skew is why. (At parallelism
// 1 no skew can be seen: the first decision, once a minute of metrics is
// in, goes to 10 as for an even load.)
func TestScalerReportsSkew(t *testing.T) {
	s := &sim{rate: steps(time.Hour, 20000), capacity: 3000, sourceCapacity: 100000, hot: 0.5}
	cfg := Config{Enabled: true, TargetUtilization: 0.7, Stabilization: time.Minute, Cooldown: 30 * time.Second}
	s.run(t, cfg, 10*time.Minute)
	if got, want := strings.Join(s.changes, " "), "1m0s:10"; got != want {
		t.Errorf("rescales %s, want %s", got, want)
	}
	last := s.decisions[len(s.decisions)-1]
	if last.Change || !strings.Contains(last.Reason, "skew limits vertex 1") || !last.Vertices[1].Skewed() {
		t.Errorf("last decision %+v, want no change because of skew", last)
	}
}

// TestScalerObserve checks how counters become samples.
func TestScalerObserve(t *testing.T) {
	var sc Scaler
	at := func(s int) time.Time { return simEpoch.Add(time.Duration(s) * time.Second) }
	sc.Observe(1, 0, 0, Counters{At: at(0), RecordsIn: 100})
	sc.Observe(1, 0, 0, Counters{At: at(2), RecordsIn: 300, RecordsOut: 50, Idle: 0.25, BackPressure: 0.25})
	sc.Observe(1, 0, 0, Counters{At: at(2), RecordsIn: 400})  // not later: ignored
	sc.Observe(0, 0, 0, Counters{At: at(3), RecordsIn: 1000}) // older attempt: ignored
	want := Sample{At: at(2), Interval: 2 * time.Second, RecordsIn: 200, RecordsOut: 50, Busy: 0.5, BackPressure: 0.25, Idle: 0.25}
	if got := sc.Samples(); len(got) != 1 || got[0] != want {
		t.Fatalf("samples %+v, want [%+v]", got, want)
	}
	sc.Observe(1, 0, 0, Counters{At: at(3), RecordsIn: 10}) // counters went back: no sample
	sc.Observe(2, 0, 0, Counters{At: at(4), RecordsIn: 10}) // new attempt: afresh
	if got := sc.Samples(); len(got) != 0 {
		t.Errorf("samples after a new attempt %+v, want none", got)
	}
}

// TestScalerObserveLogAndSnapshots: a log's lag gives the arrival rate
// (read plus the lag's growth, per second), unless an input rate is
// given; the share spent taking snapshots is not busy time.
func TestScalerObserveLogAndSnapshots(t *testing.T) {
	at := func(s int) time.Time { return simEpoch.Add(time.Duration(s) * time.Second) }
	for _, c := range []struct {
		name       string
		prev, next Counters
		want       Sample
	}{{
		// 400 read in 2 s while the lag grew 600: 1000 arrived, 500/s.
		name: "lag grows",
		prev: Counters{At: at(0), RecordsIn: 100, Backlog: 1000, LogLag: true},
		next: Counters{At: at(2), RecordsIn: 500, Backlog: 1600, LogLag: true, Idle: 0.5, Checkpointing: 0.1, Splits: 3, HasSplits: true},
		want: Sample{At: at(2), Interval: 2 * time.Second, RecordsIn: 400, Busy: 0.4, Idle: 0.5, InputRate: 500, Backlog: 1600,
			Splits: 3, HasSplits: true},
	}, {
		// Working a lag off with nothing arriving: 800 read, lag -800.
		name: "lag shrinks",
		prev: Counters{At: at(0), RecordsIn: 0, Backlog: 1000, LogLag: true},
		next: Counters{At: at(2), RecordsIn: 800, Backlog: 200, LogLag: true},
		want: Sample{At: at(2), Interval: 2 * time.Second, RecordsIn: 800, Busy: 1, Backlog: 200},
	}, {
		name: "an input rate wins",
		prev: Counters{At: at(0), Backlog: 1000, LogLag: true},
		next: Counters{At: at(2), RecordsIn: 400, Backlog: 1600, LogLag: true, InputRate: 70},
		want: Sample{At: at(2), Interval: 2 * time.Second, RecordsIn: 400, Busy: 1, InputRate: 70, Backlog: 1600},
	}, {
		// A file's bytes left are a backlog but no log: nothing arrives.
		name: "not a log",
		prev: Counters{At: at(0), Backlog: 1000},
		next: Counters{At: at(2), RecordsIn: 400, Backlog: 600},
		want: Sample{At: at(2), Interval: 2 * time.Second, RecordsIn: 400, Busy: 1, Backlog: 600},
	}} {
		var sc Scaler
		sc.Observe(1, 0, 0, c.prev)
		sc.Observe(1, 0, 0, c.next)
		got := sc.Samples()
		if len(got) != 1 || math.Abs(got[0].Busy-c.want.Busy) > 1e-9 {
			t.Errorf("%s: samples %+v, want [%+v]", c.name, got, c.want)
			continue
		}
		got[0].Busy = c.want.Busy
		if got[0] != c.want {
			t.Errorf("%s: sample %+v, want %+v", c.name, got[0], c.want)
		}
	}
}

// TestScalerNeverDecidesOnNothing: with a slack as large as the window
// (heartbeats as long as the stabilization), a subtask that never
// reported still keeps the decision back, and a NaN share reported by a
// task manager does not reach the decision.
func TestScalerNeverDecidesOnNothing(t *testing.T) {
	var sc Scaler
	at := func(s int) time.Time { return simEpoch.Add(time.Duration(s) * time.Second) }
	sc.Observe(1, 0, 0, Counters{At: at(0)})
	sc.Observe(1, 0, 0, Counters{At: at(2), RecordsIn: 100, RecordsOut: 100, Idle: math.NaN()})
	job := Job{Config: Config{Enabled: true, Stabilization: 2 * time.Second}, Interval: time.Second, Cluster: Cluster{FreeSlots: 4},
		Vertices: []Vertex{{ID: 0, Parallelism: 2, KeyGroups: 128, Source: true}}}
	d, ok, err := sc.Tick(at(2), job)
	if err != nil || !ok || d.Change || !strings.Contains(d.Reason, "vertex 0 subtask 1 covers 0s") {
		t.Fatalf("with subtask 1 silent: %+v, %v, %v", d, ok, err)
	}
	sc.Observe(1, 0, 0, Counters{At: at(4), RecordsIn: 200, RecordsOut: 200, Idle: 0.5})
	sc.Observe(1, 0, 1, Counters{At: at(2)})
	sc.Observe(1, 0, 1, Counters{At: at(4), RecordsIn: 100, RecordsOut: 100, BackPressure: math.Inf(1)})
	d, ok, err = sc.Tick(at(4), job)
	if err != nil || !ok || len(d.Vertices) != 1 {
		t.Fatalf("with both: %+v, %v, %v", d, ok, err)
	}
	if _, err := json.Marshal(d); err != nil {
		t.Errorf("the decision cannot be journaled: %v", err)
	}
}

func TestDecisionFinite(t *testing.T) {
	v := VertexDecision{Required: math.NaN(), TrueRate: math.Inf(1), Busy: 0.5, BackPressure: math.Inf(-1)}
	v.finite()
	if v.Required != 0 || v.TrueRate != 0 || v.Busy != 0.5 || v.BackPressure != 0 {
		t.Errorf("got %+v", v)
	}
}

// TestScalerHoldsScaleDowns: a noisy load that asks for less now and then
// does not scale down; one that asks for less over a whole stabilization
// does, to the most it asked for meanwhile.
func TestScalerHoldsScaleDowns(t *testing.T) {
	var sc Scaler
	at := func(s int) time.Time { return simEpoch.Add(time.Duration(s) * time.Second) }
	decide := func(now int, news ...int) Decision {
		d := Decision{At: at(now)}
		for i, n := range news {
			d.Vertices = append(d.Vertices, VertexDecision{ID: i, Current: 4, Computed: n, New: n})
		}
		d.Reason = reason(&d)
		sc.holdScaleDown(&d, at(now), 10*time.Second)
		return d
	}
	var got []string
	for _, step := range []struct {
		at   int
		news []int
	}{
		{0, []int{3, 6}}, // vertex 1 up at once, vertex 0 waits
		{5, []int{2, 4}},
		{8, []int{4, 4}}, // vertex 0 back at 4: the wait starts again
		{9, []int{2, 4}},
		{15, []int{3, 4}},
		{19, []int{2, 4}}, // 10 s of asking for less: the most, 3
	} {
		d := decide(step.at, step.news...)
		got = append(got, fmt.Sprintf("%ds:%d/%d", step.at, d.Vertices[0].New, d.Vertices[1].New))
	}
	if want := "0s:4/6 5s:4/4 8s:4/4 9s:4/4 15s:4/4 19s:3/4"; strings.Join(got, " ") != want {
		t.Errorf("got %s, want %s", strings.Join(got, " "), want)
	}
}
