package sqlrow

import "testing"

func TestTimestampText(t *testing.T) {
	tests := []struct {
		in   string
		ms   int64
		text string
	}{
		{"1970-01-01 00:00:00", 0, "1970-01-01 00:00:00.000"},
		{"1970-01-02", 86_400_000, "1970-01-02 00:00:00.000"},
		// 951782400 s is 2000-02-29, a leap day.
		{"2000-02-29 00:00:01.5", 951_782_401_500, "2000-02-29 00:00:01.500"},
		{"2000-02-29T00:00:01.123Z", 951_782_401_123, "2000-02-29 00:00:01.123"},
		{"1969-12-31 23:59:59.999", -1, "1969-12-31 23:59:59.999"},
	}
	for _, tt := range tests {
		v, err := ParseText(tt.in, Timestamp)
		if err != nil || v != TS(tt.ms) {
			t.Errorf("ParseText(%q) = %v, %v; want %d ms", tt.in, v, err, tt.ms)
			continue
		}
		if got := v.Text(); got != tt.text {
			t.Errorf("%d ms is written %q, want %q", tt.ms, got, tt.text)
		}
		enc := AppendValue(nil, v)
		if back, n, err := DecodeValue(enc); err != nil || back != v || n != 9 {
			t.Errorf("%v decodes as %v, %d, %v", v, back, n, err)
		}
	}
	for _, bad := range []string{"2000-13-01 00:00:00", "yesterday", "2000-02-30"} {
		if v, err := ParseText(bad, Timestamp); err == nil {
			t.Errorf("ParseText(%q) = %v, want an error", bad, v)
		}
	}
}
