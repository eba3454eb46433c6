package autoscale

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
)

// TestDecide runs the scenarios in testdata/. Times are offsets from an
// epoch. Commands:
//
//	config [enabled=BOOL] [target=F] [stabilization=D] [cooldown=D]
//	       [up=F] [down=F] [min=N] [max=N] [catchup=D] [maxlag=D] [maxbacklog=N]
//	       [window=(FROM,TO,MIN,MAX)...]
//	                                      the policy (enabled=true unless
//	                                      said); each config starts afresh
//	job                                   the plan, one vertex a line:
//	                                      source|vertex ID par=N
//	                                      [keygroups=N] [inputs=ID,...]
//	                                      [peak=RATE/TRUERATE]
//	samples at=D [for=D]                  one sample a line for the
//	                                      interval [at-for, at] (for=1m):
//	                                      V/S in=N out=N busy=F [bp=F]
//	                                      [idle=F] [inrate=F] [backlog=F]
//	                                      [genrate=F] [lag=D] [splits=N]
//	decide at=D [free=N] [last-rescale=D] the decision and its inputs
//
// The expected decisions in testdata are computed by hand from the formula
// in the comments above each block, not copied from the output.
func TestDecide(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var (
			cfg      Config
			vertices []Vertex
			samples  []Sample
		)
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "config":
				cfg = parseConfig(t, d)
				return "ok"
			case "job":
				vertices = parseJob(t, d.Input)
				return "ok"
			case "samples":
				at, every := dur(t, arg(d, "at", "0s")), dur(t, arg(d, "for", "1m"))
				for _, line := range lines(d.Input) {
					samples = append(samples, parseSample(t, line, epoch.Add(at), every))
				}
				return "ok"
			case "decide":
				var last time.Time
				if l := arg(d, "last-rescale", ""); l != "" {
					last = epoch.Add(dur(t, l))
				}
				free, _ := strconv.Atoi(arg(d, "free", "0"))
				dec, err := Decide(cfg, vertices, samples, Cluster{FreeSlots: free}, last,
					epoch.Add(dur(t, arg(d, "at", "0s"))))
				if err != nil {
					return "error: " + err.Error()
				}
				return format(dec)
			}
			t.Fatalf("unknown command %q", d.Cmd)
			return ""
		})
	})
}

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func format(d Decision) string {
	var b strings.Builder
	fmt.Fprintf(&b, "change=%t: %s\n", d.Change, d.Reason)
	for _, v := range d.Vertices {
		fmt.Fprintf(&b, "vertex %d: %d -> %d (computed %d)\n", v.ID, v.Current, v.New, v.Computed)
		fmt.Fprintf(&b, "  required %s rec/s", num(v.Required))
		if v.InputRate != 0 || v.Backlog != 0 {
			fmt.Fprintf(&b, " (input %s, backlog %s)", num(v.InputRate), num(v.Backlog))
		}
		fmt.Fprintf(&b, "; observed %s rec/s, out/in %s\n", num(v.Observed), num(v.OutputRatio))
		fmt.Fprintf(&b, "  busiest subtask %d: busy %s bp %s idle %s, share %s, hot %s, true rate %s rec/s\n",
			v.Busiest, num(v.Busy), num(v.BackPressure), num(v.Idle), num(v.LoadShare), num(v.HotShare), num(v.TrueRate))
		for _, n := range v.Notes {
			fmt.Fprintf(&b, "  note: %s\n", n)
		}
	}
	if d.SlotsNeeded > 0 {
		fmt.Fprintf(&b, "slots needed %d, missing %d\n", d.SlotsNeeded, d.SlotsMissing)
	}
	return b.String()
}

func parseConfig(t *testing.T, d *datadriven.TestData) Config {
	c := Config{Enabled: arg(d, "enabled", "true") == "true"}
	c.TargetUtilization = flt(t, arg(d, "target", "0"))
	c.Stabilization = dur(t, arg(d, "stabilization", "0s"))
	c.Cooldown = dur(t, arg(d, "cooldown", "0s"))
	c.MaxScaleUpFactor = flt(t, arg(d, "up", "0"))
	c.MaxScaleDownFactor = flt(t, arg(d, "down", "0"))
	c.MinParallelism = int(flt(t, arg(d, "min", "0")))
	c.MaxParallelism = int(flt(t, arg(d, "max", "0")))
	c.CatchUp = dur(t, arg(d, "catchup", "0s"))
	c.MaxLag = dur(t, arg(d, "maxlag", "0s"))
	c.MaxBacklog = flt(t, arg(d, "maxbacklog", "0"))
	for _, a := range d.CmdArgs {
		if a.Key != "window" {
			continue
		}
		// window=(FROM,TO,MIN,MAX), times as durations after midnight.
		c.Schedule = append(c.Schedule, Window{From: dur(t, a.Vals[0]), To: dur(t, a.Vals[1]),
			Min: int(flt(t, a.Vals[2])), Max: int(flt(t, a.Vals[3]))})
	}
	return c
}

func parseJob(t *testing.T, input string) []Vertex {
	var vs []Vertex
	for _, line := range lines(input) {
		f := strings.Fields(line)
		kv := pairs(f[2:])
		v := Vertex{Source: f[0] == "source", ID: int(flt(t, f[1]))}
		v.Parallelism = int(flt(t, kv["par"]))
		v.KeyGroups = int(flt(t, orDefault(kv["keygroups"], "0")))
		if pk := kv["peak"]; pk != "" {
			r, tr, _ := strings.Cut(pk, "/")
			v.PeakRate, v.PeakTrueRate = flt(t, r), flt(t, tr)
		}
		if in := kv["inputs"]; in != "" {
			for _, s := range strings.Split(in, ",") {
				v.Inputs = append(v.Inputs, int(flt(t, s)))
			}
		}
		vs = append(vs, v)
	}
	return vs
}

func parseSample(t *testing.T, line string, at time.Time, every time.Duration) Sample {
	f := strings.Fields(line)
	vs := strings.SplitN(f[0], "/", 2)
	kv := pairs(f[1:])
	g := func(k string) float64 { return flt(t, orDefault(kv[k], "0")) }
	return Sample{
		At: at, Interval: every, Vertex: int(flt(t, vs[0])), Subtask: int(flt(t, vs[1])),
		RecordsIn: g("in"), RecordsOut: g("out"), Busy: g("busy"), BackPressure: g("bp"), Idle: g("idle"),
		InputRate: g("inrate"), Backlog: g("backlog"), GeneratorRate: g("genrate"),
		Lag: dur(t, orDefault(kv["lag"], "0s")), Splits: int(g("splits")), HasSplits: kv["splits"] != "",
	}
}

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

func pairs(fields []string) map[string]string {
	m := map[string]string{}
	for _, f := range fields {
		k, v, _ := strings.Cut(f, "=")
		m[k] = v
	}
	return m
}

func arg(d *datadriven.TestData, key, def string) string {
	for _, a := range d.CmdArgs {
		if a.Key == key && len(a.Vals) > 0 {
			return a.Vals[0]
		}
	}
	return def
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func flt(t *testing.T, s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("bad number %q: %v", s, err)
	}
	return f
}

func dur(t *testing.T, s string) time.Duration {
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Fatalf("bad duration %q: %v", s, err)
	}
	return d
}
