package main

import (
	"slices"
	"testing"
)

func TestSchedulerList(t *testing.T) {
	for _, tt := range []struct {
		flag string
		want []string
	}{
		{"127.0.0.1:6123", []string{"127.0.0.1:6123"}},
		{"h1:6123,h2:6123,h3:6123", []string{"h1:6123", "h2:6123", "h3:6123"}},
		{" h1:6123 , h2:6123,", []string{"h1:6123", "h2:6123"}},
		{" , ", nil},
		{"", nil},
	} {
		got, err := schedulerList(tt.flag)
		if tt.want == nil {
			if err == nil {
				t.Errorf("schedulerList(%q) = %q, want an error", tt.flag, got)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("schedulerList(%q) = %q, %v; want %q", tt.flag, got, err, tt.want)
		}
	}
}
