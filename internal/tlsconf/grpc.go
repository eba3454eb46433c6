package tlsconf

import (
	"context"
	"slices"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
)

// This file turns a Config into gRPC's credentials. Every method takes a
// nil *Config as TLS off: plaintext, as on a loopback-only cluster.

// ServerOptions returns the options of a gRPC server that admits only
// callers whose certificate, from the CA, names one of allowed: the TLS
// handshake refuses any other, and an interceptor checks the verified
// certificate's role again on every call (RequireRole). A nil Config
// returns no options: a plaintext server.
func (c *Config) ServerOptions(allowed ...Role) []grpc.ServerOption {
	if c == nil {
		return nil
	}
	return []grpc.ServerOption{
		grpc.Creds(credentials.NewTLS(c.Server(false, allowed...))),
		grpc.ChainUnaryInterceptor(unaryRole(allowed)),
		grpc.ChainStreamInterceptor(streamRole(allowed)),
	}
}

// DialOption returns the transport credentials to dial a gRPC server with:
// this process's certificate, and a check that the server's is from the CA
// and names one of allowed. A nil Config dials in plaintext.
func (c *Config) DialOption(allowed ...Role) grpc.DialOption {
	if c == nil {
		return grpc.WithTransportCredentials(insecure.NewCredentials())
	}
	return grpc.WithTransportCredentials(credentials.NewTLS(c.Client(allowed...)))
}

// PeerRole returns the role in the verified certificate of the caller of
// a gRPC call, and false when the call came without TLS or without a
// verified certificate.
func PeerRole(ctx context.Context) (Role, bool) {
	p, ok := peer.FromContext(ctx)
	if !ok {
		return "", false
	}
	info, ok := p.AuthInfo.(credentials.TLSInfo)
	if !ok || len(info.State.VerifiedChains) == 0 || len(info.State.VerifiedChains[0]) == 0 {
		return "", false
	}
	return RoleOf(info.State.VerifiedChains[0][0]), true
}

// RequireRole returns nil when the caller of a gRPC call holds a verified
// certificate naming one of allowed (any role when allowed is empty), and
// an UNAUTHENTICATED or PERMISSION_DENIED status otherwise.
func RequireRole(ctx context.Context, allowed ...Role) error {
	r, ok := PeerRole(ctx)
	if !ok {
		return status.Error(codes.Unauthenticated, "tls: the caller presented no verified certificate")
	}
	if len(allowed) > 0 && !slices.Contains(allowed, r) {
		return status.Errorf(codes.PermissionDenied, "tls: the caller's certificate is for role %q, not one of %v", r, allowed)
	}
	return nil
}

func unaryRole(allowed []Role) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		if err := RequireRole(ctx, allowed...); err != nil {
			return nil, err
		}
		return h(ctx, req)
	}
}

func streamRole(allowed []Role) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
		if err := RequireRole(ss.Context(), allowed...); err != nil {
			return err
		}
		return h(srv, ss)
	}
}
