package udf

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// message copies a message the guest hands the host, cut to MaxMessage
// bytes with its original length said. b is a view of guest memory.
func message(b []byte) string {
	if len(b) <= MaxMessage {
		return string(b)
	}
	return fmt.Sprintf("%s… (%d bytes)", b[:MaxMessage], len(b))
}

// logLimiter is a token bucket of log lines and of bytes per second, with
// a burst of one second's worth, and the count of what it dropped.
type logLimiter struct {
	lineRate, byteRate float64 // 0 means unlimited
	lines, bytes       float64 // the tokens
	last               time.Time

	dropped, droppedBytes int64
	reported              time.Time
}

func newLogLimiter(lineRate, byteRate float64, now time.Time) logLimiter {
	return logLimiter{lineRate: lineRate, byteRate: byteRate, lines: lineRate, bytes: byteRate, last: now, reported: now}
}

// allow takes a line of n bytes from the buckets, or counts it dropped.
func (l *logLimiter) allow(now time.Time, n int) bool {
	if dt := now.Sub(l.last).Seconds(); dt > 0 {
		l.lines = min(l.lineRate, l.lines+dt*l.lineRate)
		l.bytes = min(l.byteRate, l.bytes+dt*l.byteRate)
		l.last = now
	}
	lineOK := l.lineRate == 0 || l.lines >= 1
	byteOK := l.byteRate == 0 || l.bytes >= float64(n) || (n > int(l.byteRate) && l.bytes >= l.byteRate)
	if !lineOK || !byteOK {
		l.dropped++
		l.droppedBytes += int64(n)
		return false
	}
	l.lines--
	l.bytes -= float64(n)
	return true
}

// reportDropped says how many log lines were dropped since the last
// report, at most once a second unless final.
func (in *Instance) reportDropped(now time.Time, final bool) {
	l := &in.logs
	if l.dropped == 0 || (!final && now.Sub(l.reported) < time.Second) {
		return
	}
	msg := fmt.Sprintf("dropped %d guest log lines (%d bytes) over the rate limit of %g lines and %g bytes a second",
		l.dropped, l.droppedBytes, l.lineRate, l.byteRate)
	l.dropped, l.droppedBytes, l.reported = 0, 0, now
	if in.cfg.Logger != nil {
		in.cfg.Logger.Log(context.Background(), slog.LevelWarn, msg, "module", in.m.name, "function", in.cfg.Function)
		return
	}
	fmt.Fprintf(in.m.e.log, "floe: module %q function %q: %s\n", in.m.name, in.cfg.Function, msg)
}

// guestStdout is an instance's standard output: what it writes goes to
// the engine's log under the instance's log rate limit, each write a line.
type guestStdout struct{ in *Instance }

func (w guestStdout) Write(p []byte) (int, error) {
	now := w.in.cfg.Now()
	w.in.reportDropped(now, false)
	if w.in.logs.allow(now, len(p)) {
		w.in.m.e.log.Write(p)
	}
	return len(p), nil
}
