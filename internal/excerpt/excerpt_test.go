package excerpt

import "testing"

func TestCut(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"abcdefgh", 3, "abc… (8 bytes)"},
		// é is two bytes: a cut inside it backs up to its start.
		{"aébc", 2, "a… (5 bytes)"},
		{"aébc", 3, "aé… (5 bytes)"},
		{"abc", 0, "… (3 bytes)"},
	}
	for _, tt := range tests {
		if got := Cut(tt.s, tt.n); got != tt.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}
