package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/floe-stream/floe/host/taskmanager"
	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/sqlc"
	"github.com/spf13/cobra"
)

// sqlLong explains floe sql.
const sqlLong = `Compiles a stream SQL script (docs/sql.md) into a job spec and runs it on an
embedded mini-cluster, exactly as floe run runs the spec: the same flags, the
same checkpoints, savepoints and metrics. The script declares tables with
CREATE TABLE ... WITH (connector = ..., ...) and its queries with INSERT INTO
sink SELECT ...; --set fills the ${name} parameters its WITH options use.

A script whose query is preceded by EXPLAIN prints the job's graph and stages,
as floe plan does, and runs nothing; --print-spec prints the compiled spec,
which floe run and floe job submit take as it is. Errors name the line and
column of the script, with the text at fault.`

// sqlCommand compiles a SQL script and runs, explains or prints it.
func sqlCommand(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use: "sql -f JOB.sql [--set key=value]... [--parallelism N] [flags]", Short: "compile a SQL script into a job and run it on an embedded mini-cluster",
		Long: sqlLong, Args: positional(),
	}
	var f runFlags
	f.register(cmd.Flags())
	file := cmd.Flags().StringP("file", "f", "", "the SQL script to run (required; - reads standard input)")
	printSpec := cmd.Flags().Bool("print-spec", false, "print the compiled job spec and exit")
	server := cmd.Flags().String("server", "", "`URL` of a scheduler's REST API: send the script to it (POST /v1/sql), which compiles and submits it, "+
		"and print the job's id, instead of running it here; its functions' modules are named by digest")
	token := cmd.Flags().String("token", "", tokenFlagHelp)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if *server != "" {
			return codeError(submitSQL(*server, *token, *file, &f, stdout, stderr))
		}
		if f.verbose && !cmd.Flags().Changed("log-level") {
			f.logLevel = "info"
		}
		f.runtime = taskmanager.TuneRuntime()
		return codeError(runSQL(*file, *printSpec, &f, stdout, stderr))
	}
	return cmd
}

// runSQL compiles the script at path and prints, explains or runs it.
func runSQL(path string, printSpec bool, f *runFlags, stdout, stderr io.Writer) int {
	if path == "" {
		fmt.Fprintln(stderr, "floe sql: missing -f JOB.sql")
		return 2
	}
	job, err := compileSQL(path)
	if err == nil && !printSpec {
		// NB: a printed spec may keep its ${name} parameters unset.
		err = checkSQL(path, job, f.set)
	}
	if err != nil {
		fmt.Fprintf(stderr, "floe sql: %v\n", err)
		return 2
	}
	if printSpec {
		stdout.Write(job.Spec)
		return 0
	}
	spec, cleanup, err := writeSpec(job)
	if err != nil {
		fmt.Fprintf(stderr, "floe sql: %v\n", err)
		return 1
	}
	defer cleanup()
	f.locate = func(err error) error { return locateSubmission(path, job, err) }
	if job.Explain {
		p, err := planSpec(spec, f.set, f.parallelism)
		if err != nil {
			fmt.Fprintf(stderr, "floe sql: %v\n", err)
			return 2
		}
		fmt.Fprint(stdout, describePlan(p))
		return 0
	}
	return runJob(spec, f, stdout, stderr)
}

// compileSQL reads and compiles the script at path ("-" for stdin); the
// job is named after the file.
func compileSQL(path string) (*sqlc.Job, error) {
	var src []byte
	var err error
	name := "sql"
	if path == "-" {
		src, err = io.ReadAll(os.Stdin)
	} else {
		src, err = os.ReadFile(path)
		name = jobName(path)
	}
	if err != nil {
		return nil, err
	}
	dir, _ := filepath.Abs(filepath.Dir(path))
	if path == "-" {
		dir, _ = os.Getwd()
	}
	job, err := sqlc.Compile(string(src), sqlc.Options{Name: name, Dir: dir})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return job, nil
}

// jobName makes a job name of a file's base name: its characters that a
// name may not hold become _.
func jobName(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	base = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return '_'
	}, base)
	if base == "" || len(base) > 64 {
		return "sql"
	}
	return base
}

// isSQL tells a SQL script from a job spec by its name.
func isSQL(path string) bool { return strings.EqualFold(filepath.Ext(path), ".sql") }

// compileSQLToFile compiles the script at path into a spec file in a
// temporary directory, which cleanup removes, and checks it with the
// --set values.
func compileSQLToFile(path string, set []string) (spec string, cleanup func(), err error) {
	job, err := compileSQL(path)
	if err == nil {
		err = checkSQL(path, job, set)
	}
	if err != nil {
		return "", nil, err
	}
	return writeSpec(job)
}

// checkSQL parses a compiled job's spec with the --set values, so that a
// problem a connector finds in a table's WITH options is reported at the
// option in the script rather than in a spec the user never wrote.
func checkSQL(path string, job *sqlc.Job, set []string) error {
	params, err := jobspec.ParseSet(set)
	if err != nil {
		return err
	}
	if _, err := jobspec.Parse(job.Spec, "", params); err != nil {
		return fmt.Errorf("%s: %w", path, job.Locate(err))
	}
	return nil
}

// writeSpec writes a compiled job's spec into a temporary directory, which
// cleanup removes. The spec names no module, so where it lies does not
// matter.
func writeSpec(job *sqlc.Job) (spec string, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "floe-sql-")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.RemoveAll(dir) }
	spec = filepath.Join(dir, "job.yaml")
	if err := os.WriteFile(spec, job.Spec, 0o600); err != nil {
		cleanup()
		return "", nil, err
	}
	return spec, cleanup, nil
}

// compileSQLForServer compiles a script sent to POST /v1/sql: its modules
// must be named by digest, since the scheduler reads no path a client
// names. The spec is parsed with the request's parameters, so that what a
// connector finds wrong points at the script, as floe sql -f does.
func compileSQLForServer(script, name string, set map[string]string) ([]byte, error) {
	job, err := sqlc.Compile(script, sqlc.Options{Name: name, ModulesByDigest: true})
	if err != nil {
		return nil, err
	}
	if job.Explain {
		return nil, fmt.Errorf("EXPLAIN: POST /v1/sql submits a job; explain a script with floe sql -f")
	}
	if _, err := jobspec.Parse(job.Spec, "", set); err != nil {
		return nil, job.Locate(err)
	}
	return job.Spec, nil
}
