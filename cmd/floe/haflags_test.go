package main

import (
	"slices"
	"strings"
	"testing"
)

func TestHAFlags(t *testing.T) {
	for _, tc := range []struct {
		addr, peers string
		want        []string
		err         string
	}{
		{"", "", nil, ""},
		{"h1:1", "h1:1, h2:2,h3:3", []string{"h1:1", "h2:2", "h3:3"}, ""},
		{"h1:1", "", nil, "go together"},
		{"", "h1:1,h2:2", nil, "go together"},
		{"h4:4", "h1:1,h2:2,h3:3", nil, "does not name this scheduler"},
	} {
		got, err := haFlags(tc.addr, tc.peers)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("haFlags(%q, %q) = %v, want an error with %q", tc.addr, tc.peers, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("haFlags(%q, %q) = %v, %v, want %v", tc.addr, tc.peers, got, err, tc.want)
		}
	}
}
