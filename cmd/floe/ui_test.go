package main

import (
	"io"
	"slices"
	"testing"

	"github.com/spf13/pflag"
)

func TestUIFlag(t *testing.T) {
	tests := []struct {
		args []string
		addr string
		rest []string
	}{
		{nil, "", nil},
		{[]string{"--ui"}, defaultUIAddr, nil},
		{[]string{"--ui=0.0.0.0:9000"}, "0.0.0.0:9000", nil},
		{[]string{"--ui", "127.0.0.1:0"}, "127.0.0.1:0", nil},
		{[]string{"--ui", ":8082", "--parallelism", "2"}, ":8082", nil},
		{[]string{"--ui=false"}, "", nil},
		{[]string{"--ui", "job.yaml"}, defaultUIAddr, []string{"job.yaml"}},
		{[]string{"--ui", "dir:x/job.yaml"}, defaultUIAddr, []string{"dir:x/job.yaml"}},
		{[]string{"--ui", "--parallelism", "2"}, defaultUIAddr, nil},
	}
	for _, tt := range tests {
		fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var f runFlags
		f.register(fs)
		if err := fs.Parse(uiArgs(tt.args)); err != nil {
			t.Errorf("%q: %v", tt.args, err)
			continue
		}
		if f.ui.addr != tt.addr || !slices.Equal(fs.Args(), tt.rest) {
			t.Errorf("%q: --ui %q, arguments left %q; want %q and %q", tt.args, f.ui.addr, fs.Args(), tt.addr, tt.rest)
		}
	}
}
