package main

import (
	"strings"
	"testing"
)

func TestDrawHasALinePerRateAndStage(t *testing.T) {
	s := []point{
		{T: 0, SourceRate: 0, SinkRate: 0, Parallelism: []int{1, 1}},
		{T: 1, SourceRate: 100, SinkRate: 50, Parallelism: []int{1, 2}},
		{T: 2, SourceRate: 100, SinkRate: 100, Parallelism: []int{1, 4}},
	}
	var b strings.Builder
	if err := draw(&b, s); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	if n := strings.Count(svg, "<polyline"); n != 4 {
		t.Fatalf("%d polylines, want 4 (source, sink, two stages):\n%s", n, svg)
	}
	// The sink's line ends at the top of the rate panel (its maximum), at
	// the right edge of the chart.
	if !strings.Contains(svg, `stroke="#ff7f0e" stroke-width="2" points="70.0,250.0 425.0,140.0 780.0,30.0"`) {
		t.Errorf("the sink's line is not where 0, 50, 100 of 100 go:\n%s", svg)
	}
	if !strings.HasSuffix(svg, "</svg>\n") {
		t.Error("the SVG is not closed")
	}
}
