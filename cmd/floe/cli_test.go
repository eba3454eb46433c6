package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandLineErrors checks what a bad or a help command line prints,
// where, and its exit code: usage errors are one line and a hint on stderr
// with exit 2; help asked for goes to stdout with exit 0.
func TestCommandLineErrors(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // a substring of stdout, or "" for none at all
		stderr string // the whole of stderr, or a substring if it ends in "…"
	}{
		{"unknown command with a suggestion", []string{"job", "sumbit", "x.yaml"}, 2, "",
			"floe: unknown command \"sumbit\" for \"floe job\"\nDid you mean this? submit\nRun 'floe job --help' for usage.\n"},
		{"unknown top command", []string{"rnu"}, 2, "",
			"floe: unknown command \"rnu\" for \"floe\"\nDid you mean this? run\nRun 'floe --help' for usage.\n"},
		{"unknown command without a suggestion", []string{"state", "zzz"}, 2, "",
			"floe: unknown command \"zzz\" for \"floe state\"\nRun 'floe state --help' for usage.\n"},
		{"unknown flag", []string{"job", "list", "--bogus"}, 2, "",
			"floe job list: unknown flag: --bogus\nRun 'floe job list --help' for usage.\n"},
		{"unknown flag of floe", []string{"--bogus"}, 2, "", "floe: unknown flag: --bogus\nRun 'floe --help' for usage.\n"},
		{"single-dash long flag", []string{"job", "list", "-server", "x"}, 2, "", "floe job list: unknown shorthand flag: 's' in -server…"},
		{"missing argument", []string{"job", "status"}, 2, "", "floe job status: missing ID\nRun 'floe job status --help' for usage.\n"},
		{"extra argument", []string{"new", "a", "b"}, 2, "", "floe new: unexpected arguments [\"b\"]\nRun 'floe new --help' for usage.\n"},
		{"bad flag value", []string{"run", "x.yaml", "--parallelism", "two"}, 2, "", "floe run: invalid argument \"two\" for \"--parallelism\" flag…"},
		{"bad size", []string{"taskmanager", "--max-memory", "lots"}, 2, "", "floe taskmanager: invalid argument \"lots\" for \"--max-memory\" flag…"},
		{"unknown language", []string{"new", "x", "--lang", "java"}, 2, "", "floe new: --lang \"java\": want one of…"},
		{"missing run spec", []string{"run", "--progress", "0"}, 2, "", "floe run: missing JOB.yaml\nRun 'floe run --help' for usage.\n"},
		{"flags after the spec", []string{"run", "missing.yaml", "--set", "k=v", "--parallelism", "2"}, 2, "", "floe run: …missing.yaml…"},
		{"no command", nil, 2, "", "Available Commands:…"},
		{"group without a command", []string{"job"}, 2, "", "Available Commands:…"},
		{"help", []string{"help"}, 0, "Available Commands:", ""},
		{"--help", []string{"--help"}, 0, "Available Commands:", ""},
		{"-h of a command", []string{"new", "-h"}, 0, "Usage:\n  floe new NAME", ""},
		{"help of a command", []string{"help", "job", "submit"}, 0, "Usage:\n  floe job submit JOB.yaml", ""},
		{"group help", []string{"job", "help", "wait"}, 0, "Usage:\n  floe job wait ID", ""},
		{"long flags in help", []string{"run", "--help"}, 0, "      --max-memory size ", ""},
		{"size defaults in help", []string{"taskmanager", "--help"}, 0, `(default 256MiB)`, ""},
		{"completion", []string{"completion", "--help"}, 0, "bash", ""},
		{"version", []string{"version"}, 0, "floe dev\ncommit:", ""},
		{"--version", []string{"--version"}, 0, "floe dev\ncommit:", ""},
		{"version takes no argument", []string{"version", "x"}, 2, "", "floe version: unexpected arguments [\"x\"]…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runFloe(tt.args...)
			okOut := tt.stdout == "" && r.stdout == "" || tt.stdout != "" && strings.Contains(r.stdout, tt.stdout)
			okErr := r.stderr == tt.stderr
			if want, ok := strings.CutSuffix(tt.stderr, "…"); ok {
				okErr = true
				for _, part := range strings.Split(want, "…") {
					okErr = okErr && strings.Contains(r.stderr, part)
				}
			}
			if r.code != tt.code || !okOut || !okErr {
				t.Errorf("floe %q: exit %d\nstdout %q\nstderr %q\nwant exit %d, stdout with %q, stderr %q",
					tt.args, r.code, r.stdout, r.stderr, tt.code, tt.stdout, tt.stderr)
			}
		})
	}
}

// TestNewHelpOnce checks that floe new --help prints its usage once.
func TestNewHelpOnce(t *testing.T) {
	r := runFloe("new", "--help")
	if n := strings.Count(r.stdout, "Usage:"); r.code != 0 || n != 1 {
		t.Errorf("floe new --help: exit %d, %d usages:\n%s", r.code, n, r.stdout)
	}
}

// TestCompletionScripts checks that bash accepts the bash completion
// script and that the others are written.
func TestCompletionScripts(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	for _, shell := range []string{"bash", "zsh", "fish"} {
		r := runFloe("completion", shell)
		if r.code != 0 || !strings.Contains(r.stdout, "floe") || r.stderr != "" {
			t.Fatalf("floe completion %s: %+v", shell, r)
		}
		if shell != "bash" {
			continue
		}
		script := filepath.Join(t.TempDir(), "floe.bash")
		if err := os.WriteFile(script, []byte(r.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(bash, "-n", script).CombinedOutput(); err != nil {
			t.Errorf("bash -n rejects the completion script: %v\n%s", err, out)
		}
	}
}

// TestCLIDocsUpToDate fails when docs/cli.md differs from what the
// commands generate: run `go run ./cmd/floe docs docs` and commit it.
func TestCLIDocsUpToDate(t *testing.T) {
	t.Setenv("FLOE_SERVER", "")
	want, err := os.ReadFile(filepath.Join("..", "..", "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if r := runFloe("docs", dir); r.code != 0 {
		t.Fatalf("floe docs: %+v", r)
	}
	got, err := os.ReadFile(filepath.Join(dir, "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("docs/cli.md differs from what the commands generate; run `go run ./cmd/floe docs docs` and commit it")
	}
}
