package scheduler

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/floe-stream/floe/internal/wasmbuild"
	"github.com/floe-stream/floe/scheduler/api"
)

// emptyModule is the smallest Wasm module, the magic and version: valid
// Wasm, but no Floe module, as it lacks the ABI's exports.
const emptyModule = "\x00asm\x01\x00\x00\x00"

// testops builds udfs/testops, a real Floe module.
func testops(t *testing.T) []byte {
	t.Helper()
	root, err := wasmbuild.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	path, err := wasmbuild.Go(filepath.Join(root, "udfs", "testops"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	wasm, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return wasm
}

// TestFollowerServesAPushedModule pushes a module through a follower of a
// group of three: the leader stores and journals it, and the follower then
// serves it from its own applied state and artifact store.
func TestFollowerServesAPushedModule(t *testing.T) {
	g := startGroup(t, 3)
	f := g.follower()
	waitUntil(t, func() bool { _, err := f.leaderREST(); return err == nil })
	wasm := testops(t)
	sum := sha256.Sum256(wasm)
	d := hex.EncodeToString(sum[:])

	resp, body, _ := g.doRetry(t, f, http.MethodPost, "/v1/modules?name=testops", string(wasm))
	var info api.ModuleInfo
	if err := json.Unmarshal([]byte(body), &info); err != nil || resp.StatusCode != http.StatusCreated || info.Digest != d || info.Name != "testops" || len(info.Functions) == 0 {
		t.Fatalf("POST /v1/modules through a follower: %s %s; want 201 with digest %s", resp.Status, body, d)
	}
	waitUntil(t, func() bool { _, err := f.Module(context.Background(), d); return err == nil })
	resp, body = g.do(t, f, http.MethodGet, "/v1/modules/"+d, "", nil)
	if resp.StatusCode != http.StatusOK || resp.Header.Get(leaderHeader) != "" {
		t.Errorf("GET /v1/modules/{digest} on a follower: %s %s, want it served by the follower", resp.Status, body)
	}
	if !f.artifacts.Has(d) {
		t.Error("the follower has not stored the module's bytes")
	}

	// A 503 may come after the delete was committed (leadership lost
	// while it was applied), so a retry may find the module gone.
	resp, body, retried := g.doRetry(t, f, http.MethodDelete, "/v1/modules/"+d, "")
	if resp.StatusCode != http.StatusNoContent && !(retried && resp.StatusCode == http.StatusNotFound) {
		t.Fatalf("DELETE through a follower: %s %s", resp.Status, body)
	}
	waitUntil(t, func() bool { return !f.artifacts.Has(d) })
	if _, err := f.Module(context.Background(), d); !errors.Is(err, api.ErrNotFound) {
		t.Errorf("Module on the follower after the delete: %v, want not found", err)
	}
}

// TestPushRefusesInvalidWasm checks that a module is validated when it is
// pushed.
func TestPushRefusesInvalidWasm(t *testing.T) {
	g := startGroup(t, 1)
	_, err := g.leader().PushModule(context.Background(), "bad", []byte(emptyModule))
	if !errors.Is(err, api.ErrBadRequest) {
		t.Errorf("PushModule(invalid) = %v, want a bad request", err)
	}
	if _, err := g.leader().PushModule(context.Background(), "a b", []byte(emptyModule)); !errors.Is(err, api.ErrBadRequest) {
		t.Errorf("PushModule(bad name) = %v, want a bad request", err)
	}
	if mods, _ := g.leader().Modules(context.Background()); len(mods) != 0 {
		t.Errorf("modules after refused pushes: %+v", mods)
	}
}

// TestPushNamesAndJournalsOnce checks that a module pushed again with
// nothing new is not journaled again, and that a name given later renames
// a module pushed without one.
func TestPushNamesAndJournalsOnce(t *testing.T) {
	g := startGroup(t, 1)
	s, ctx, wasm := g.leader(), context.Background(), testops(t)
	push := func(name string) api.ModuleInfo {
		t.Helper()
		info, err := s.PushModule(ctx, name, wasm)
		if err != nil {
			t.Fatal(err)
		}
		return info
	}
	if info := push(""); info.Name != "" || len(info.Functions) == 0 {
		t.Errorf("pushed without a name: %+v, want no name and the function table", info)
	}
	if info := push("ops"); info.Name != "ops" {
		t.Errorf("pushed again as ops: %+v", info)
	}
	// NB: the leader journals its Lead and then its addresses on its own;
	// with those applied, and no task manager or job, only a push can
	// journal anything.
	waitUntil(t, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		_, ok := s.fsm.Member(s.rlog.ID())
		return ok
	})
	applied := s.rlog.Applied()
	for _, name := range []string{"", "ops"} {
		if info := push(name); info.Name != "ops" {
			t.Errorf("pushed again as %q: %+v, want it still named ops", name, info)
		}
	}
	if s.rlog.Applied() != applied {
		t.Errorf("pushing a known module again journaled %d commands, want none", s.rlog.Applied()-applied)
	}
}
