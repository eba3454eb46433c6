package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/floe-stream/floe/internal/tlsconf"
)

const certsUsage = `Usage: floe certs init DIR [--hosts H1,H2,...] [--validity DURATION]

Writes a development certificate authority and a certificate for each role of
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
16), and this command comes first so the files have one agreed layout.

Flags:
`

func certsCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("certs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	hosts := fs.String("hosts", "localhost,127.0.0.1,::1", "comma-separated DNS names and IP addresses the scheduler and task managers are reached at")
	validity := fs.Duration("validity", 365*24*time.Hour, "how long the role certificates are valid (the CA: ten times as long)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), certsUsage)
		fs.PrintDefaults()
	}
	if len(args) > 0 && (args[0] == "help" || args[0] == "-h" || args[0] == "--help") {
		fs.SetOutput(stdout)
		fs.Usage()
		return 0
	}
	if len(args) == 0 || args[0] != "init" {
		if len(args) == 0 {
			fmt.Fprintf(stderr, "floe certs: want a subcommand: init\n\n")
		} else {
			fmt.Fprintf(stderr, "floe certs: unknown subcommand %q; want init\n\n", args[0])
		}
		fs.Usage()
		return 2
	}
	// Flags may come before or after DIR.
	dirs, code, ok := parseInterspersed(fs, args[1:], stdout)
	if !ok {
		return code
	}
	if len(dirs) != 1 {
		fmt.Fprintf(stderr, "floe certs init: want one DIR, got %d\n\n", len(dirs))
		fs.Usage()
		return 2
	}
	var hs []string
	for _, h := range strings.Split(*hosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			hs = append(hs, h)
		}
	}
	if len(hs) == 0 {
		fmt.Fprintln(stderr, "floe certs init: --hosts names no host")
		return 2
	}
	files, err := tlsconf.Init(dirs[0], tlsconf.InitOptions{Hosts: hs, Validity: *validity})
	if err != nil {
		fmt.Fprintf(stderr, "floe certs init: %v\n", err)
		return 1
	}
	for _, f := range files {
		fmt.Fprintln(stdout, "wrote", f)
	}
	abs, _ := filepath.Abs(dirs[0])
	if abs == "" {
		abs = dirs[0]
	}
	fmt.Fprintf(stdout, "certificates for %s, valid %s; keep %s private\n", strings.Join(hs, ", "), *validity, filepath.Join(abs, "ca-key.pem"))
	return 0
}
