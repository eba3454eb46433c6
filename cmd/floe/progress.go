package main

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
)

// progress is what floe run shows of a running job: how much of its input
// its sources have read, when they can tell, and how fast it goes.
type progress struct {
	// read and total are the bytes the sources have read and the size of
	// their input; total is 0 when unknown (an unbounded source).
	read, total int64
	// records is what the first stage has read; rate is how many records
	// a second it reads now.
	records int64
	rate    float64
}

// progressOf takes a job's progress from its metrics.
func progressOf(m api.JobMetrics) progress {
	if len(m.Vertices) == 0 {
		return progress{}
	}
	v := m.Vertices[0]
	p := progress{records: v.RecordsIn, rate: v.RecordsInPerSecond}
	if v.Progress != nil {
		p.read, p.total = v.Progress.BytesRead, v.Progress.BytesTotal
	}
	return p
}

// formatProgress writes p as one line: the share of the input read with
// the bytes, the records and their rate, and the time left at that rate,
// as in "42.0% of 1.5 GiB, 1.2M records, 250.0k records/s, ETA 1m05s".
// What is not known is left out.
func formatProgress(p progress) string {
	s := ""
	if p.total > 0 {
		s = fmt.Sprintf("%.1f%% of %s, ", 100*min(1, float64(p.read)/float64(p.total)), formatBytes(p.total))
	}
	s += fmt.Sprintf("%s records, %s records/s", formatCount(float64(p.records)), formatCount(p.rate))
	if eta, ok := etaOf(p); ok {
		s += ", ETA " + formatETA(eta)
	}
	return s
}

// etaOf estimates the time left to read the input, assuming the bytes of
// a record stay as they were so far and the rate holds.
func etaOf(p progress) (time.Duration, bool) {
	if p.total <= 0 || p.read <= 0 || p.records <= 0 || p.rate <= 0 {
		return 0, false
	}
	left := float64(max(0, p.total-p.read)) / (float64(p.read) / float64(p.records)) / p.rate
	if left > float64(math.MaxInt64/int64(time.Second)) {
		return 0, false
	}
	return time.Duration(left * float64(time.Second)), true
}

// formatETA writes d to the second, as in 45s, 3m07s or 2h05m09s.
func formatETA(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm%02ds", s/3600, s/60%60, s%60)
}

// formatCount writes n with a decimal SI suffix past a thousand, as in
// 950, 1.2k or 3.4M.
func formatCount(n float64) string {
	const units = "kMGTPE"
	if math.Abs(n) < 999.5 {
		return fmt.Sprintf("%.0f", n)
	}
	v, i := n/1000, 0
	// NB: 999.95 rather than 1000, so that rounding to one decimal never
	// writes "1000.0k" for what is 1.0M.
	for math.Abs(v) >= 999.95 && i < len(units)-1 {
		v, i = v/1000, i+1
	}
	return fmt.Sprintf("%.1f%c", v, units[i])
}

// progressLine shows a job's progress on w, which is stderr: on a
// terminal, one line rewritten in place every second; otherwise a line of
// its own every interval, as a log would have it.
type progressLine struct {
	w     io.Writer
	tty   bool
	every time.Duration
	last  time.Time
	// open tells that a line is on the terminal without its newline.
	open bool
}

// newProgressLine returns a progressLine writing to w every interval, or
// every second on a terminal; an interval of 0 shows nothing.
func newProgressLine(w io.Writer, interval time.Duration) *progressLine {
	p := &progressLine{w: w, tty: isTerminal(w), every: interval, last: time.Now()}
	if p.tty && interval > 0 {
		p.every = time.Second
	}
	return p
}

// due reports whether a line is due at now.
func (p *progressLine) due(now time.Time) bool {
	return p.every > 0 && now.Sub(p.last) >= p.every
}

// show writes the job's progress as of now.
func (p *progressLine) show(now time.Time, m api.JobMetrics) {
	p.last = now
	line := formatProgress(progressOf(m))
	if p.tty {
		// NB: \x1b[K clears what a longer line before left on the right.
		fmt.Fprintf(p.w, "\r%s\x1b[K", line)
		p.open = true
		return
	}
	fmt.Fprintf(p.w, "progress: %s\n", line)
}

// end finishes the line on a terminal, before something else is written.
func (p *progressLine) end() {
	if p.open {
		fmt.Fprintln(p.w)
		p.open = false
	}
}
