package eventtime

import "time"

// Pacer decides what a source subtask sends downstream about its event
// time: its watermark at most once an interval and only when it advanced,
// and an idle mark once the source has read nothing for the idle timeout
// (or every split it reads is idle), so that the tasks downstream stop
// waiting for it (see Tracker). The source counts again with its next
// records.
//
// A Pacer reads no clock: the task passes the time with each call.
type Pacer struct {
	interval, idleFor time.Duration
	emitted           int64
	lastEmit          time.Time
	lastData          time.Time
	idle              bool
}

// Mark is a watermark to send downstream. An idle mark carries the last
// watermark sent.
type Mark struct {
	Watermark int64
	Idle      bool
}

// NewPacer returns a pacer that checks the watermark at most once an
// interval and marks the source idle after idleFor without records (0:
// never), for a source opened at now.
func NewPacer(interval, idleFor time.Duration, now time.Time) *Pacer {
	return &Pacer{interval: interval, idleFor: idleFor, emitted: Min, lastData: now}
}

// Due notes that the source read n records by now, and reports whether an
// interval has passed since the last check: the task then computes the
// source's watermark and calls Emit.
func (p *Pacer) Due(now time.Time, n int) bool {
	if n > 0 {
		p.lastData, p.idle = now, false
	}
	if now.Sub(p.lastEmit) < p.interval {
		return false
	}
	p.lastEmit = now
	return true
}

// Emit returns the mark to send, if any, given the source's watermark wm
// and whether every split it reads is idle. The source goes idle once,
// until its next records; otherwise it sends wm if it advanced.
func (p *Pacer) Emit(now time.Time, wm int64, splitsIdle bool) (Mark, bool) {
	if p.idleFor > 0 && !p.idle && (splitsIdle || now.Sub(p.lastData) >= p.idleFor) {
		p.idle = true
		return Mark{Watermark: p.emitted, Idle: true}, true
	}
	if wm > p.emitted {
		p.emitted = wm
		return Mark{Watermark: wm}, true
	}
	return Mark{}, false
}
