package ckstore

import (
	"context"
	"fmt"
	"os"

	"github.com/floe-stream/floe/storage/ckstore/localfs"
	"github.com/floe-stream/floe/storage/ckstore/s3store"
)

// Open returns the store that rawURL names (see ParseURL). An s3 store is
// set up from opts and the environment (see Options) and its bucket is
// checked, or created if opts.CreateBucket is set; a file store's directory
// is created by its first Put.
func Open(ctx context.Context, rawURL string, opts Options) (Store, error) {
	loc, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	return open(ctx, loc, opts, os.Getenv)
}

func open(ctx context.Context, loc Location, opts Options, getenv func(string) string) (Store, error) {
	switch loc.Scheme {
	case "file":
		s, err := localfs.Open(loc.Dir)
		if err != nil {
			return nil, err // NB: not s, a typed nil
		}
		return s, nil
	case "s3":
		cfg, err := s3Config(loc, opts, getenv)
		if err != nil {
			return nil, fmt.Errorf("%w (store %s)", err, loc)
		}
		s, err := s3store.New(ctx, cfg)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	return nil, fmt.Errorf("checkpoint: unsupported location %q", loc)
}

// Opener opens the store a checkpoint storage URL names. The scheduler,
// the task manager and the mini-cluster take one in their configuration
// so that tests can substitute stores that fail on command (package
// faulty); OpenerFor(opts) is what they use by default. An Opener may be
// called concurrently and for the same URL more than once.
type Opener func(ctx context.Context, rawURL string) (Store, error)

// OpenerFor returns the Opener that calls Open with opts.
func OpenerFor(opts Options) Opener {
	return func(ctx context.Context, rawURL string) (Store, error) { return Open(ctx, rawURL, opts) }
}
