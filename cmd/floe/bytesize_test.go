package main

import (
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func TestByteSize(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		printed string
		wantErr bool
	}{
		{"268435456", 256 << 20, "256MiB", false},
		{"256MiB", 256 << 20, "256MiB", false},
		{"256mib", 256 << 20, "256MiB", false},
		{"64KiB", 64 << 10, "64KiB", false},
		{"2GiB", 2 << 30, "2GiB", false},
		{"1GB", 1_000_000_000, "1000000000", false},
		{"64KB", 64_000, "64000", false},
		{"3MB", 3_000_000, "3000000", false},
		{"1536KiB", 1536 << 10, "1536KiB", false},
		{"1000", 1000, "1000", false},
		{"0", 0, "0", false},
		{"12QB", 0, "", true},
		{"-1MiB", 0, "", true},
		{"MiB", 0, "", true},
	}
	for _, tt := range tests {
		var b byteSize
		err := b.Set(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("Set(%q) = %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if err == nil && (int64(b) != tt.want || b.String() != tt.printed) {
			t.Errorf("Set(%q): %d printed %q, want %d printed %q", tt.in, int64(b), b.String(), tt.want, tt.printed)
		}
	}
}

// TestSizeFlagDefault checks that a size flag's default shows in help in
// the units a person would write.
func TestSizeFlagDefault(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	var n int64
	sizeVar(fs, &n, "max-memory", 256<<20, "memory cap")
	if got := fs.Lookup("max-memory").DefValue; got != "256MiB" || n != 256<<20 {
		t.Errorf("default %q (%d), want 256MiB", got, n)
	}
	if err := fs.Parse([]string{"--max-memory", "1GiB"}); err != nil || n != 1<<30 {
		t.Errorf("--max-memory 1GiB: %d, %v", n, err)
	}
}

func TestSummary(t *testing.T) {
	got := summary("wordcount", 1234567, 890, 2*time.Second)
	want := "job finished: wordcount, 1,234,567 records in, 890 out, in 2s (445 records/s out)"
	if got != want {
		t.Errorf("summary = %q, want %q", got, want)
	}
}
