package main

import (
	"bytes"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestPrintVersion(t *testing.T) {
	for _, tc := range []struct {
		name   string
		info   *debug.BuildInfo
		ok     bool
		commit string
	}{
		{name: "no build info", commit: "commit:  unknown\n"},
		{name: "clean checkout", ok: true, info: &debug.BuildInfo{Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123abc"}, {Key: "vcs.time", Value: "2026-12-01T10:00:00Z"}, {Key: "vcs.modified", Value: "false"},
		}}, commit: "commit:  0123abc 2026-12-01T10:00:00Z\n"},
		{name: "modified checkout", ok: true, info: &debug.BuildInfo{Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123abc"}, {Key: "vcs.modified", Value: "true"},
		}}, commit: "commit:  0123abc (modified)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			printVersion(&out, tc.info, tc.ok)
			got := out.String()
			for _, want := range []string{"floe " + version + "\n", tc.commit, "go:      " + runtime.Version(), "abi:     floe_v1\n"} {
				if !strings.Contains(got, want) {
					t.Errorf("output lacks %q:\n%s", want, got)
				}
			}
		})
	}
}

// The version command goes to stdout and exits 0, like every request for
// help or information.
func TestVersionCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := floe([]string{"version"}, &out, &errOut); code != 0 || !strings.HasPrefix(out.String(), "floe ") || errOut.Len() != 0 {
		t.Fatalf("floe version: exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
}
