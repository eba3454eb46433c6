package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/floe-stream/floe/scheduler"
	"github.com/spf13/pflag"
)

// schedulerAuth are the flags of floe scheduler about the REST API's
// users (docs/security.md).
type schedulerAuth struct {
	tokens, memberTokenFile string
}

// schedulerAuthFlags registers them.
func schedulerAuthFlags(fs *pflag.FlagSet) *schedulerAuth {
	a := &schedulerAuth{}
	fs.StringVar(&a.tokens, "auth-tokens", "", "token `FILE` of the REST API's users (floe token create): every request but /healthz then needs a user's bearer token and role; without it the REST API serves everyone. SIGHUP reads the file again")
	fs.StringVar(&a.memberTokenFile, "ha-token-file", "", "`FILE` holding an admin's token that this scheduler sends to the other members of its group, which need it when they check tokens (--auth-tokens)")
	return a
}

// apply sets the users and the member token of cfg.
func (a *schedulerAuth) apply(cfg *scheduler.Config) error {
	cfg.AuthTokens = a.tokens
	if a.memberTokenFile == "" {
		return nil
	}
	data, err := os.ReadFile(a.memberTokenFile)
	if err != nil {
		return fmt.Errorf("--ha-token-file: %w", err)
	}
	if cfg.MemberToken = strings.TrimSpace(string(data)); cfg.MemberToken == "" {
		return fmt.Errorf("--ha-token-file %s holds no token", a.memberTokenFile)
	}
	return nil
}

// reloadOnHangup reads the scheduler's token file again on every SIGHUP
// until ctx is done.
func reloadOnHangup(ctx context.Context, s *scheduler.Server, log *slog.Logger) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			if err := s.ReloadAuthTokens(); err != nil {
				log.Error("reloading the REST API's users on SIGHUP; the users stay as they were", "err", err)
			}
		}
	}
}
