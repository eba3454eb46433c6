package taskmanager

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/floe-stream/floe/host/udf"
	floev1 "github.com/floe-stream/floe/proto/floe/v1"
)

// modules fetches modules from the leading scheduler by digest, keeps them on disk
// and compiles each once per process.
type modules struct {
	engine   *udf.Engine
	sched    func() (floev1.SchedulerClient, error) // the leader
	dir      string
	mu       sync.Mutex
	compiled map[string]*udf.Module // by digest
	paths    map[string]string      // by digest
}

func newModules(e *udf.Engine, sched func() (floev1.SchedulerClient, error), dir string) *modules {
	return &modules{engine: e, sched: sched, dir: dir, compiled: map[string]*udf.Module{}, paths: map[string]string{}}
}

// path returns the local file of digest d, fetching it when missing.
func (m *modules) path(ctx context.Context, d string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if p, ok := m.paths[d]; ok {
		return p, nil
	}
	p := filepath.Join(m.dir, d+".wasm")
	if _, err := os.Stat(p); err != nil {
		if err := m.fetch(ctx, d, p); err != nil {
			return "", err
		}
	}
	m.paths[d] = p
	return p, nil
}

// fetch downloads digest d into p, checking the bytes against it.
func (m *modules) fetch(ctx context.Context, d, p string) error {
	sched, err := m.sched()
	if err != nil {
		return fmt.Errorf("fetching module %s: %w", d, err)
	}
	stream, err := sched.FetchArtifact(ctx, &floev1.FetchArtifactRequest{Sha256: d})
	if err != nil {
		return fmt.Errorf("fetching module %s: %w", d, err)
	}
	var buf bytes.Buffer
	for {
		c, err := stream.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("fetching module %s: %w", d, err)
		}
		buf.Write(c.Data)
	}
	sum := sha256.Sum256(buf.Bytes())
	if got := hex.EncodeToString(sum[:]); got != d {
		return fmt.Errorf("fetching module %s: received bytes with digest %s", d, got)
	}
	if err := os.MkdirAll(m.dir, 0o755); err != nil {
		return err
	}
	tmp := p + ".part"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}

// module returns the compiled module of digest d, named name in errors.
func (m *modules) module(ctx context.Context, name, d string) (*udf.Module, error) {
	p, err := m.path(ctx, d)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.compiled[d]; ok {
		return c, nil
	}
	wasm, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	c, err := m.engine.Compile(ctx, name, wasm)
	if err != nil {
		return nil, err
	}
	m.compiled[d] = c
	return c, nil
}
