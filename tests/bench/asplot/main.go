// Command asplot draws the autoscale-step row's time series from a
// bench-results.json as an SVG: the source's and the sink's records/s
// over time, and each stage's parallelism under it. Hand-drawn
// polylines, no plotting library.
//
//	go run ./tests/bench -only autoscale-step -out /tmp/as.json
//	go run ./tests/bench/asplot -in /tmp/as.json -out docs/images/autoscale-step.svg
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// point is a sample of the series, as tests/bench writes it.
type point struct {
	T           float64 `json:"t"`
	SourceRate  float64 `json:"source_rate"`
	SinkRate    float64 `json:"sink_rate"`
	Parallelism []int   `json:"parallelism"`
	InFlight    int64   `json:"in_flight"`
}

type result struct {
	Name  string `json:"name"`
	Extra struct {
		Series []point `json:"series"`
	} `json:"extra"`
}

func main() {
	in := flag.String("in", "bench-results.json", "the bench's JSON output")
	out := flag.String("out", "autoscale-step.svg", "the SVG to write")
	flag.Parse()
	if err := run(*in, *out); err != nil {
		fmt.Fprintln(os.Stderr, "asplot:", err)
		os.Exit(1)
	}
}

func run(in, out string) error {
	raw, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	var rs []result
	if err := json.Unmarshal(raw, &rs); err != nil {
		return err
	}
	for _, r := range rs {
		if r.Name == "autoscale-step" && len(r.Extra.Series) > 1 {
			f, err := os.Create(out)
			if err != nil {
				return err
			}
			return errors.Join(draw(f, r.Extra.Series), f.Close())
		}
	}
	return fmt.Errorf("%s has no autoscale-step row with a series", in)
}

// The chart's geometry: two panels sharing the time axis.
const (
	width, left, right = 800.0, 70.0, 20.0
	rateTop, rateH     = 30.0, 220.0
	parTop, parH       = 300.0, 110.0
	height             = 460.0
)

var stageColors = []string{"#7f7f7f", "#d62728", "#9467bd", "#8c564b"}

func draw(w io.Writer, s []point) error {
	tMax, rMax, pMax := 0.0, 1.0, 1
	for _, p := range s {
		tMax, rMax = max(tMax, p.T), max(rMax, p.SourceRate, p.SinkRate)
		for _, n := range p.Parallelism {
			pMax = max(pMax, n)
		}
	}
	x := func(t float64) float64 { return left + (width-left-right)*t/tMax }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">`+"\n", width, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	axes(&b, rateTop, rateH, fmt.Sprintf("%.0fK", rMax/1000), "records/s", tMax, x)
	axes(&b, parTop, parH, fmt.Sprint(pMax), "parallelism", tMax, x)
	yr := func(v float64) float64 { return rateTop + rateH - rateH*v/rMax }
	line(&b, s, "#1f77b4", 2, func(p point) (float64, float64) { return x(p.T), yr(p.SourceRate) })
	line(&b, s, "#ff7f0e", 2, func(p point) (float64, float64) { return x(p.T), yr(p.SinkRate) })
	legend(&b, left+10, rateTop+14, "#1f77b4", "source records/s")
	legend(&b, left+160, rateTop+14, "#ff7f0e", "sink records/s")
	yp := func(n int) float64 { return parTop + parH - parH*float64(n)/float64(pMax) }
	for st := range s[len(s)-1].Parallelism {
		c := stageColors[st%len(stageColors)]
		line(&b, s, c, 2, func(p point) (float64, float64) {
			n := 0
			if st < len(p.Parallelism) {
				n = p.Parallelism[st]
			}
			return x(p.T), yp(n) - float64(st)*2 // NB: offset so equal lines stay visible
		})
		legend(&b, left+10+150*float64(st), parTop+14, c, fmt.Sprintf("stage %d parallelism", st))
	}
	fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" text-anchor="middle">seconds since submission</text>`+"\n", (left+width-right)/2, height-10)
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func axes(b *strings.Builder, top, h float64, maxLabel, name string, tMax float64, x func(float64) float64) {
	fmt.Fprintf(b, `<rect x="%.0f" y="%.0f" width="%.0f" height="%.0f" fill="none" stroke="#ccc"/>`+"\n", left, top, width-left-right, h)
	fmt.Fprintf(b, `<text x="%.0f" y="%.0f" text-anchor="end">%s</text>`+"\n", left-5, top+10, maxLabel)
	fmt.Fprintf(b, `<text x="%.0f" y="%.0f" text-anchor="end">0</text>`+"\n", left-5, top+h)
	fmt.Fprintf(b, `<text x="15" y="%.0f" transform="rotate(-90 15 %.0f)" text-anchor="middle">%s</text>`+"\n", top+h/2, top+h/2, name)
	for t := 0.0; t <= tMax; t += 5 {
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#eee"/>`+"\n", x(t), top, x(t), top+h)
		fmt.Fprintf(b, `<text x="%.1f" y="%.0f" text-anchor="middle">%.0f</text>`+"\n", x(t), top+h+14, t)
	}
}

func line(b *strings.Builder, s []point, color string, wd float64, xy func(point) (float64, float64)) {
	fmt.Fprintf(b, `<polyline fill="none" stroke="%s" stroke-width="%.0f" points="`, color, wd)
	for i, p := range s {
		px, py := xy(p)
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(b, "%.1f,%.1f", px, py)
	}
	b.WriteString(`"/>` + "\n")
}

func legend(b *strings.Builder, x, y float64, color, text string) {
	fmt.Fprintf(b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="%s" stroke-width="3"/>`+"\n", x, y-4, x+20, y-4, color)
	fmt.Fprintf(b, `<text x="%.0f" y="%.0f">%s</text>`+"\n", x+25, y, text)
}
