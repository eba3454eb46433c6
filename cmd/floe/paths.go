package main

import (
	"github.com/floe-stream/floe/internal/confine"
	"github.com/spf13/pflag"
)

// allowedPathsHelp is the help of --allowed-paths.
const allowedPathsHelp = "the directories jobs may read and write below, comma-separated: file sources and sinks, checkpoint storage and savepoint directories outside them are refused (docs/security.md)"

// allowedPathsFlag registers --allowed-paths on fs.
func allowedPathsFlag(fs *pflag.FlagSet, help string) *string {
	return fs.String("allowed-paths", "", allowedPathsHelp+help)
}

// allowedPaths returns the allowed paths of a process from its
// --allowed-paths flag: the flag's list when it is given; otherwise, when
// the process's API is protected (TLS or tokens), its data directory
// alone, since a cluster that guards who may submit should not let those
// who may read any file; otherwise none, which restricts nothing.
// floe scheduler passes whether it runs TLS or checks tokens.
func allowedPaths(flagValue string, protected bool, dataDir string) []string {
	switch {
	case flagValue != "":
		return confine.ParseList(flagValue)
	case protected:
		return []string{dataDir}
	}
	return nil
}
