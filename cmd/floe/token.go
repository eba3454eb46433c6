package main

import (
	"crypto/rand"
	"fmt"
	"io"
	"os"

	"github.com/floe-stream/floe/internal/auth"
	"github.com/floe-stream/floe/scheduler/client"
	"github.com/spf13/cobra"
)

// tokenLong explains floe token create.
const tokenLong = `Makes a bearer token for user NAME of the REST API and adds the user to the
token file FILE, which a scheduler reads with --auth-tokens FILE. The file
holds the token's SHA-256 only, and is created readable by its owner alone;
the token is printed once, on stdout, and is nowhere else: hand it to the
user, who sets FLOE_TOKEN to it (docs/security.md). A scheduler that is
running reads the file again on SIGHUP.

Roles: viewer reads jobs, checkpoints, task managers, the scheduler group and
the queryable states a job opens to viewers; operator also submits, cancels,
rescales, savepoints and stops jobs and reads every queryable state; admin
also changes the scheduler group. To take a user's token away, delete its
line and send the scheduler SIGHUP.`

func tokenCommand(stdout, stderr io.Writer) *cobra.Command {
	g := groupCommand("token", "make a REST API user's bearer token",
		"Makes the bearer tokens of the REST API's users: floe token create NAME --role ROLE --file FILE.")
	cmd := &cobra.Command{Use: "create NAME --role viewer|operator|admin --file FILE", Short: "make a REST API user's bearer token and add the user to a token file",
		Long: tokenLong, Args: positional("NAME")}
	role := cmd.Flags().String("role", "", "the user's `role`: viewer, operator or admin (required)")
	file := cmd.Flags().String("file", "", "the token `FILE` to add the user to, created if absent (required)")
	cmd.RunE = func(cmd *cobra.Command, names []string) error {
		return tokenCreate(names[0], *role, *file, stdout, stderr)
	}
	g.AddCommand(cmd)
	return g
}

// tokenCreate adds user name to the token file and prints its token.
func tokenCreate(name, role, file string, stdout, stderr io.Writer) error {
	var err error
	var r auth.Role
	switch {
	case file == "":
		err = fmt.Errorf("--file is required: the token file a scheduler reads with --auth-tokens")
	case role == "":
		err = fmt.Errorf("--role is required: viewer, operator or admin")
	default:
		if r, err = auth.ParseRole(role); err == nil {
			err = auth.CheckName(name)
		}
	}
	if err != nil {
		return err
	}
	token, err := auth.Append(file, auth.User{Name: name, Role: r}, rand.Reader)
	if err != nil {
		fmt.Fprintf(stderr, "floe token create: %v\n", err)
		return exitCode(1)
	}
	fmt.Fprintln(stdout, token)
	fmt.Fprintf(stderr, "floe token create: added %s (%s) to %s; the token above is shown only once\n", name, r, file)
	return nil
}

// tokenFlagHelp is the help of --token, which every command that talks to
// the scheduler takes.
const tokenFlagHelp = "bearer `TOKEN` for a scheduler that checks tokens (floe token create); default $FLOE_TOKEN, " +
	"which is better than the flag: a flag shows in the process list"

// bearer returns the token the command sends: --token, else $FLOE_TOKEN,
// and where it comes from.
func (j *jobCLI) bearer() (token, from string) {
	if j.token != "" {
		return j.token, "--token"
	}
	return os.Getenv("FLOE_TOKEN"), "FLOE_TOKEN"
}

// client returns a client of the scheduler that trusts the command's CA
// and sends its token, if it has them.
func (j *jobCLI) client() (*client.Client, error) {
	hc, err := j.tls.httpClient()
	if err != nil {
		return nil, err
	}
	c := client.New(j.server, hc)
	if token, _ := j.bearer(); token != "" {
		c = c.WithToken(token)
	}
	return c, nil
}

// unauthenticated adds to a 401 what to do about it.
func (j *jobCLI) unauthenticated(err error) error {
	token, from := j.bearer()
	if token == "" {
		return fmt.Errorf("%w; set FLOE_TOKEN (or --token) to your token, which `floe token create` makes", err)
	}
	return fmt.Errorf("%w; the token in %s is not one of this scheduler's users: ask for one that `floe token create` made for its --auth-tokens file", err, from)
}
