package lifecycle

import (
	"testing"
	"time"
)

func TestRates(t *testing.T) {
	t0 := time.Unix(1000, 0)
	tests := []struct {
		name      string
		prev, cur Sample
		want      Rates
	}{
		{"first sample", Sample{}, Sample{At: t0, RecordsIn: 500, RecordsOut: 400}, Rates{}},
		{"one second", Sample{At: t0, RecordsIn: 100, RecordsOut: 50}, Sample{At: t0.Add(time.Second), RecordsIn: 1100, RecordsOut: 550}, Rates{1000, 500}},
		{"half a second", Sample{At: t0, RecordsIn: 0}, Sample{At: t0.Add(500 * time.Millisecond), RecordsIn: 300}, Rates{RecordsIn: 600}},
		{"same instant", Sample{At: t0, RecordsIn: 1}, Sample{At: t0, RecordsIn: 9}, Rates{}},
		{"clock stepped back", Sample{At: t0, RecordsIn: 1}, Sample{At: t0.Add(-time.Second), RecordsIn: 9}, Rates{}},
	}
	for _, tt := range tests {
		if got := rates(tt.prev, tt.cur); got != tt.want {
			t.Errorf("%s: rates = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
