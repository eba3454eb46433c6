package autoscale

import (
	"fmt"
	"time"
)

// Window is a time of day during which the policy's bounds differ (the
// schedule policy): from From to To after midnight UTC, To excluded; a
// window whose To is not after its From wraps past midnight. A zero Min
// or Max keeps the policy's.
type Window struct {
	From, To time.Duration
	Min, Max int
}

// String renders the window as "08:00-20:00".
func (w Window) String() string {
	hm := func(d time.Duration) string { return fmt.Sprintf("%02d:%02d", int(d.Hours()), int(d.Minutes())%60) }
	return hm(w.From) + "-" + hm(w.To)
}

// contains reports whether the time of day of now (UTC) lies in w.
func (w Window) contains(now time.Time) bool {
	u := now.UTC()
	t := time.Duration(u.Hour())*time.Hour + time.Duration(u.Minute())*time.Minute + time.Duration(u.Second())*time.Second
	if w.From < w.To {
		return w.From <= t && t < w.To
	}
	return t >= w.From || t < w.To
}

// inForce returns cfg with the bounds of the first of its windows that
// holds now, and that window; ok is false when none does.
func (c Config) inForce(now time.Time) (Config, Window, bool) {
	for _, w := range c.Schedule {
		if !w.contains(now) {
			continue
		}
		if w.Min > 0 {
			c.MinParallelism = w.Min
		}
		if w.Max > 0 {
			c.MaxParallelism = w.Max
		}
		return c, w, true
	}
	return c, Window{}, false
}
