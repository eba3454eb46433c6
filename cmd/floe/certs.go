package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/floe-stream/floe/internal/tlsconf"
	"github.com/spf13/cobra"
)

// certsLong explains floe certs init.
const certsLong = `Writes a development certificate authority and a certificate for each role of
a cluster, signed by it, with no other tool needed:

  DIR/ca.pem, DIR/ca-key.pem      the CA (keep ca-key.pem private)
  DIR/scheduler/                  the scheduler's identity
  DIR/taskmanager/                the task managers' identity
  DIR/client/                     the command line's identity

Each role directory holds ca.pem, cert.pem and key.pem; the role is written
in the certificate (organizational unit floe-scheduler, floe-taskmanager or
floe-client), so a certificate of one role cannot pass for another. The
scheduler's and task managers' certificates are valid for --hosts. It
refuses to overwrite an existing file.

The processes do not take these yet: TLS between them is being built (issue
16), and this command comes first so the files have one agreed layout.`

func certsCommand(stdout, stderr io.Writer) *cobra.Command {
	g := groupCommand("certs", "write a development CA and certificates for each role",
		"Writes a development CA and certificates: floe certs init DIR [--hosts H1,H2,...].")
	cmd := &cobra.Command{Use: "init DIR [--hosts H1,H2,...] [--validity DURATION]", Short: "write a development CA and a certificate for each role",
		Long: certsLong, Args: positional("DIR")}
	hosts := cmd.Flags().String("hosts", "localhost,127.0.0.1,::1", "comma-separated DNS names and IP addresses the scheduler and task managers are reached at")
	validity := cmd.Flags().Duration("validity", 365*24*time.Hour, "how long the role certificates are valid (the CA: ten times as long)")
	cmd.RunE = func(cmd *cobra.Command, dirs []string) error {
		return codeError(certsInit(dirs[0], *hosts, *validity, stdout, stderr))
	}
	g.AddCommand(cmd)
	return g
}

// certsInit writes the certificates into dir and returns the exit code.
func certsInit(dir, hosts string, validity time.Duration, stdout, stderr io.Writer) int {
	var hs []string
	for _, h := range strings.Split(hosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			hs = append(hs, h)
		}
	}
	if len(hs) == 0 {
		fmt.Fprintln(stderr, "floe certs init: --hosts names no host")
		return 2
	}
	files, err := tlsconf.Init(dir, tlsconf.InitOptions{Hosts: hs, Validity: validity})
	if err != nil {
		fmt.Fprintf(stderr, "floe certs init: %v\n", err)
		return 1
	}
	for _, f := range files {
		fmt.Fprintln(stdout, "wrote", f)
	}
	abs, _ := filepath.Abs(dir)
	if abs == "" {
		abs = dir
	}
	fmt.Fprintf(stdout, "certificates for %s, valid %s; keep %s private\n", strings.Join(hs, ", "), validity, filepath.Join(abs, "ca-key.pem"))
	return 0
}
