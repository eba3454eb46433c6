package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"time"

	"github.com/floe-stream/floe/storage/ckstore"
	"github.com/floe-stream/floe/tests/s3server"
)

// ckptStore is checkpoint storage for a benchmark: an S3 bucket of a
// versitygw on loopback when versitygw is installed (as tests/s3server
// finds it), else a local directory.
type ckptStore struct {
	ckstore.Store
	// kind says which: "s3 (versitygw on loopback)" or "file".
	kind string
	gw   *exec.Cmd
	log  bytes.Buffer
}

// openCkptStore opens checkpoint storage under a new directory of the env.
func (e *env) openCkptStore() (*ckptStore, error) {
	dir, err := os.MkdirTemp(e.dir, "checkpoints-")
	if err != nil {
		return nil, err
	}
	bin, err := s3server.Binary()
	if err != nil {
		fmt.Fprintf(e.cfg.Log, "no versitygw, checkpoints go to file://%s: %v\n", dir, err)
		st, err := ckstore.Open(e.ctx, "file://"+dir, ckstore.Options{})
		return &ckptStore{Store: st, kind: "file"}, err
	}
	s := &ckptStore{kind: "s3 (versitygw on loopback)"}
	if err := s.startGateway(e.ctx, bin, dir); err != nil {
		return nil, errors.Join(err, s.close())
	}
	return s, nil
}

// startGateway starts versitygw over dir and opens a bucket of it.
func (s *ckptStore) startGateway(ctx context.Context, bin, dir string) error {
	addr, err := freeAddr()
	if err != nil {
		return err
	}
	const access, secret = "floe-bench", "floe-bench-secret-key"
	s.gw = exec.Command(bin, "--port", addr, "posix", dir)
	s.gw.Env = append(os.Environ(), "ROOT_ACCESS_KEY="+access, "ROOT_SECRET_KEY="+secret)
	s.gw.Stdout, s.gw.Stderr = &s.log, &s.log
	if err := s.gw.Start(); err != nil {
		return fmt.Errorf("starting versitygw: %w", err)
	}
	opts := ckstore.Options{Endpoint: "http://" + addr, AccessKey: access, SecretKey: secret, Region: "us-east-1", CreateBucket: true}
	deadline := time.Now().Add(30 * time.Second)
	for {
		s.Store, err = ckstore.Open(ctx, "s3://floe-bench/checkpoints", opts)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("versitygw on %s: %w\n%s", addr, err, s.log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (s *ckptStore) close() error {
	if s.gw == nil || s.gw.Process == nil {
		return nil
	}
	return stopProcess(s.gw)
}

// freeAddr returns a loopback address with a port that was free a moment
// ago.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}
