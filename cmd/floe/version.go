package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/floe-stream/floe/host/udf"
)

// version is the release, stamped by `make build` with
// -ldflags "-X main.version=$(git describe --tags --always --dirty)";
// a plain `go build` leaves "dev" and the build info still names the commit.
var version = "dev"

// printVersion writes what a bug report needs: the release, the commit and
// its time (from the Go build info, present when built in a git checkout),
// the Go toolchain, and the ABI the host offers guests.
func printVersion(w io.Writer, info *debug.BuildInfo, ok bool) {
	fmt.Fprintf(w, "floe %s\n", version)
	commit, when, modified := "unknown", "", false
	if ok {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if modified {
		commit += " (modified)"
	}
	if when != "" {
		commit += " " + when
	}
	fmt.Fprintf(w, "commit:  %s\n", commit)
	fmt.Fprintf(w, "go:      %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(w, "abi:     %s\n", udf.ABIModule)
}
