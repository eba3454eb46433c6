// Package tlsconf is the TLS configuration every Floe process shares: the
// scheduler, the task managers and the command-line client each load a
// certificate, its key and the cluster's CA from one directory (--tls-dir,
// holding ca.pem, cert.pem and key.pem) or from three files, and get
// crypto/tls configurations for serving and for dialing.
//
// Between cluster processes TLS is mutual: a server asks every client for a
// certificate signed by the cluster CA, and a client checks the server's
// against the same CA. A process's role — scheduler, task manager or client
// — is written into its certificate (the organizational unit of its
// subject), so a server can refuse a peer that holds a valid certificate of
// the wrong role: a client certificate cannot register as a task manager.
//
// Config.ServerOptions and Config.DialOption turn a Config into gRPC's
// credentials; the server's options also check the caller's role on every
// call, with RequireRole. A nil *Config is TLS off: plaintext credentials
// and no options. LoadClient is the command-line client's configuration,
// which needs the CA only. Loopback tells whether an address to listen on
// is reachable from this machine only, the one place plaintext is allowed
// without --insecure.
//
// Init writes a development CA and a certificate for each role, signed by
// it, with crypto/x509 alone (no openssl): `floe certs init DIR`.
package tlsconf
