package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client"
	"github.com/spf13/cobra"
)

// moduleLong explains floe module; cobra lists its commands.
const moduleLong = `Manages the Wasm modules a scheduler stores on their own. A pushed module is
validated once and kept by the SHA-256 of its bytes; a job spec then names it
by digest instead of by path,

  modules:
    wordcount: wordcount@sha256:4f1c…    # or sha256:4f1c…

and its submission uploads nothing for it. floe job submit pushes the modules
of a spec's files that the scheduler lacks by itself.

Every command takes --server URL, the scheduler's REST address, or a
comma-separated list of a scheduler group's, of which the first that answers
is used; the default is $FLOE_SERVER, or http://127.0.0.1:8081 if that is
unset. An https:// scheduler's certificate is checked against the CA in
--tls-ca FILE, default $FLOE_TLS_CA. A scheduler that checks tokens needs
--token TOKEN, or better $FLOE_TOKEN (docs/security.md): push and rm need the
operator role, list the viewer role.

Exit codes: 0 success; 1 the scheduler refused the request or cannot be
reached; 2 bad command line; 130 interrupted.`

// moduleCommand builds floe module and its subcommands.
func moduleCommand(stdout, stderr io.Writer) *cobra.Command {
	g := groupCommand("module", "push, list and delete the Wasm modules a scheduler stores", moduleLong)
	addCommands(g, map[string]string{
		"push": "upload a Wasm module once; prints its digest and name",
		"list": "list the stored modules: digest, name, size, the jobs running them",
		"rm":   "delete a stored module that no running job uses",
	}, modulePushCmd(stdout, stderr), moduleListCmd(stdout, stderr), moduleRmCmd(stdout, stderr))
	return g
}

func modulePushCmd(stdout, stderr io.Writer) *cobra.Command {
	j := newGroupCLI("module", "push", "FILE.wasm [--name NAME] [flags]",
		"Uploads a Wasm module to the scheduler, which compiles it once, reads its\n"+
			"function table and stores it by the SHA-256 of its bytes. Prints the\n"+
			"reference a spec names it by, NAME@sha256:DIGEST (sha256:DIGEST without a\n"+
			"name). The name defaults to the file's base name without .wasm. Pushing a\n"+
			"module the scheduler has already is cheap.\n", stdout, stderr)
	name := j.fs.String("name", "", "the module's `NAME` (default: the file's base name without .wasm)")
	return j.command(func(pos []string) int {
		wasm, err := os.ReadFile(pos[0])
		if err != nil {
			return j.usageError(err)
		}
		n := *name
		if !j.isSet("name") {
			n = strings.TrimSuffix(baseName(pos[0]), ".wasm")
		}
		return j.run(func(ctx context.Context, c *client.Client) error {
			info, err := c.PushModule(ctx, n, wasm)
			if err == nil {
				fmt.Fprintln(stdout, moduleRef(info))
			}
			return err
		})
	}, "FILE.wasm")
}

// baseName returns the last element of a slash- or OS-separated path.
func baseName(path string) string {
	return path[strings.LastIndexAny(path, "/"+string(os.PathSeparator))+1:]
}

// moduleRef renders a module as a spec names it.
func moduleRef(info api.ModuleInfo) string {
	if info.Name == "" {
		return "sha256:" + info.Digest
	}
	return info.Name + "@sha256:" + info.Digest
}

func moduleListCmd(stdout, stderr io.Writer) *cobra.Command {
	j := newGroupCLI("module", "list", "[flags]",
		"Lists the modules the scheduler stores, pushed or uploaded with a job: each\n"+
			"one's digest, name, size, and the jobs that run it and have not ended.\n"+
			"-o json prints the list as the REST API returns it, function tables too.\n", stdout, stderr)
	output := j.outputFlag()
	return j.command(func([]string) int {
		if err := checkOutput(*output); err != nil {
			return j.usageError(err)
		}
		return j.run(func(ctx context.Context, c *client.Client) error {
			mods, err := c.Modules(ctx)
			if err != nil {
				return err
			}
			if *output == "json" {
				return printJSON(stdout, struct {
					Modules []api.ModuleInfo `json:"modules"`
				}{mods})
			}
			return printModules(stdout, mods)
		})
	})
}

func printModules(w io.Writer, mods []api.ModuleInfo) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "DIGEST\tNAME\tSIZE\tFUNCTIONS\tUSED BY")
	for _, m := range mods {
		fns := "-"
		if m.Functions != nil {
			fns = fmt.Sprint(len(m.Functions))
		}
		used := strings.Join(m.UsedBy, ",")
		fmt.Fprintf(tw, "sha256:%s\t%s\t%s\t%s\t%s\n", m.Digest, orDash(m.Name), formatBytes(m.Size), fns, orDash(used))
	}
	return tw.Flush()
}

func moduleRmCmd(stdout, stderr io.Writer) *cobra.Command {
	j := newGroupCLI("module", "rm", "DIGEST [flags]",
		"Deletes a stored module, named by its digest (sha256:HEX or HEX). A module\n"+
			"that a job which has not ended runs is not deleted: cancel the job first.\n"+
			"Prints the digest deleted.\n", stdout, stderr)
	return j.command(func(pos []string) int {
		return j.run(func(ctx context.Context, c *client.Client) error {
			err := c.DeleteModule(ctx, pos[0])
			if err == nil {
				fmt.Fprintln(stdout, "deleted sha256:"+strings.TrimPrefix(pos[0], "sha256:"))
			}
			return err
		})
	}, "DIGEST")
}
