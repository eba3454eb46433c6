package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client"
	"github.com/spf13/cobra"
)

// clusterLong explains floe cluster; cobra lists its commands.
const clusterLong = `Shows the schedulers behind the REST API: a single scheduler, or a group of
schedulers that replicate their state over Raft, one of which leads.

Every command takes --server URL, the scheduler's REST address, or a
comma-separated list of a scheduler group's, of which the first that answers
is used; the default is $FLOE_SERVER, or http://127.0.0.1:8081 if that is
unset. An https:// scheduler's certificate is checked against the CA in
--tls-ca FILE, default $FLOE_TLS_CA. A scheduler that checks tokens needs
--token TOKEN, or better $FLOE_TOKEN (docs/security.md).

Exit codes: 0 success; 1 the scheduler refused the request or cannot be
reached; 2 bad command line; 130 interrupted.`

// clusterCommand builds floe cluster and its subcommands.
func clusterCommand(stdout, stderr io.Writer) *cobra.Command {
	g := groupCommand("cluster", "show the schedulers: members, leader, applied log index", clusterLong)
	addCommands(g, map[string]string{"status": "list the members, the leader and each member's applied log index"},
		clusterStatusCmd(stdout, stderr))
	return g
}

func clusterStatusCmd(stdout, stderr io.Writer) *cobra.Command {
	j := newGroupCLI("cluster", "status", "[flags]",
		"Lists the schedulers of the group as the scheduler that answers sees them:\n"+
			"each member's id, Raft address, REST address, whether it leads, and the\n"+
			"index of the last log entry it has applied (\"unreachable\" when the\n"+
			"answering scheduler could not ask it). A single scheduler is a group of one.\n"+
			"-o json prints the view as the REST API returns it.\n", stdout, stderr)
	output := j.outputFlag()
	return j.command(func([]string) int {
		if err := checkOutput(*output); err != nil {
			return j.usageError(err)
		}
		return j.run(func(ctx context.Context, c *client.Client) error {
			st, err := c.Cluster(ctx)
			if err != nil {
				return err
			}
			if *output == "json" {
				return printJSON(stdout, st)
			}
			return printCluster(stdout, st)
		})
	})
}

// printCluster prints the leader and term, then a table of the members.
func printCluster(w io.Writer, st api.ClusterStatus) error {
	if st.Leader == "" {
		fmt.Fprintf(w, "Leader: none known (term %d)\n\n", st.Term)
	} else {
		fmt.Fprintf(w, "Leader: %s (term %d)\n\n", st.Leader, st.Term)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "MEMBER\tRAFT ADDR\tREST ADDR\tLEADER\tAPPLIED")
	for _, m := range st.Members {
		applied := "unreachable"
		if m.Reachable {
			applied = strconv.FormatUint(m.Applied, 10)
		}
		leader := "no"
		if m.Leader {
			leader = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", m.ID, m.RaftAddr, orDash(m.RESTAddr), leader, applied)
	}
	return tw.Flush()
}
