package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/floe-stream/floe/host/udf"
	"github.com/floe-stream/floe/internal/wasmbuild"
)

// env is what every benchmark gets: the scale, one Wasm engine for the
// process, the modules compiled so far and a scratch directory for built
// modules and state.
type env struct {
	ctx     context.Context
	cfg     Config
	engine  *udf.Engine
	dir     string
	root    string
	modules map[string]*udf.Module
}

func newEnv(ctx context.Context, cfg Config) (*env, error) {
	root, err := wasmbuild.RepoRoot()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "floe-bench-")
	if err != nil {
		return nil, err
	}
	engine, err := udf.NewEngine(ctx, udf.Config{Uninterruptible: cfg.Uninterruptible})
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return &env{ctx: ctx, cfg: cfg, engine: engine, dir: dir, root: root, modules: map[string]*udf.Module{}}, nil
}

// module returns the operator module udfs/<name>, built from source and
// compiled the first time it is asked for.
func (e *env) module(name string) (*udf.Module, error) {
	if m, ok := e.modules[name]; ok {
		return m, nil
	}
	path, err := wasmbuild.Go(filepath.Join(e.root, "udfs", name), e.dir)
	if err != nil {
		return nil, err
	}
	wasm, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := e.engine.Compile(e.ctx, name, wasm)
	if err != nil {
		return nil, err
	}
	e.modules[name] = m
	return m, nil
}

// stateDir returns a new, empty directory for one operator's state.
func (e *env) stateDir() (string, error) {
	d, err := os.MkdirTemp(e.dir, "state-")
	if err != nil {
		return "", fmt.Errorf("state directory: %w", err)
	}
	return d, nil
}

func (e *env) close() error {
	return errors.Join(e.engine.Close(context.Background()), os.RemoveAll(e.dir))
}
