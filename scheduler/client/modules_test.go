package client_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"testing"

	"github.com/floe-stream/floe/scheduler/api"
	"github.com/floe-stream/floe/scheduler/client"
	"github.com/floe-stream/floe/scheduler/client/clienttest"
)

// sha256Hex is computed here, independently of the code under test.
func sha256Hex(b string) string {
	sum := sha256.Sum256([]byte(b))
	return hex.EncodeToString(sum[:])
}

func TestModules(t *testing.T) {
	_, c := start(t)
	ctx := context.Background()
	wasm := "\x00asm wc"
	info, err := c.PushModule(ctx, "wc", []byte(wasm))
	if err != nil || info.Digest != sha256Hex(wasm) || info.Name != "wc" || info.Size != int64(len(wasm)) {
		t.Fatalf("PushModule = %+v, %v", info, err)
	}
	if client.Digest([]byte(wasm)) != sha256Hex(wasm) {
		t.Errorf("Digest = %s, want %s", client.Digest([]byte(wasm)), sha256Hex(wasm))
	}
	if has, err := c.HasModule(ctx, info.Digest); !has || err != nil {
		t.Errorf("HasModule(pushed) = %v, %v", has, err)
	}
	if has, err := c.HasModule(ctx, sha256Hex("other")); has || err != nil {
		t.Errorf("HasModule(other) = %v, %v; want false, nil", has, err)
	}
	if _, err := c.HasModule(ctx, "nope"); !errors.Is(err, api.ErrBadRequest) {
		t.Errorf("HasModule(nope) = %v, want a bad request", err)
	}
	if mods, err := c.Modules(ctx); err != nil || len(mods) != 1 || mods[0].Digest != info.Digest {
		t.Errorf("Modules = %+v, %v", mods, err)
	}
	if got, err := c.Module(ctx, "sha256:"+info.Digest); err != nil || got.Name != "wc" {
		t.Errorf("Module = %+v, %v", got, err)
	}
	if err := c.DeleteModule(ctx, info.Digest); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Module(ctx, info.Digest); !errors.Is(err, api.ErrNotFound) {
		t.Errorf("Module after delete = %v, want not found", err)
	}
}

// TestSubmitFilesPushesOnlyMissingModules checks that a module is uploaded
// once, on its own, however many jobs run it.
func TestSubmitFilesPushesOnlyMissingModules(t *testing.T) {
	fake, c := start(t)
	ctx := context.Background()
	for range 3 {
		if _, err := c.SubmitFiles(ctx, writeJob(t, "\x00asm"), client.SubmitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := fake.Pushes(), []string{sha256Hex("\x00asm")}; !slices.Equal(got, want) {
		t.Errorf("pushes %v, want %v: one, for the first job", got, want)
	}
	for i, s := range fake.Submissions() {
		if len(s.Modules) != 0 || s.Digests["ops"] != sha256Hex("\x00asm") {
			t.Errorf("submission %d uploaded %d modules with digests %v, want none and ops by digest", i, len(s.Modules), s.Digests)
		}
	}
	// Another module file is pushed once more.
	if _, err := c.SubmitFiles(ctx, writeJob(t, "\x00asm v2"), client.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := fake.Pushes(); len(got) != 2 || got[1] != sha256Hex("\x00asm v2") {
		t.Errorf("pushes %v, want a second for the new module", got)
	}
}

// TestSubmitFilesToASchedulerWithoutModules checks that a scheduler that
// stores no modules on their own gets them with the job.
func TestSubmitFilesToASchedulerWithoutModules(t *testing.T) {
	fake := clienttest.NewFake()
	srv := clienttest.NewServer(t, struct{ api.Service }{fake})
	c := client.New(srv.URL, nil)
	if _, err := c.SubmitFiles(context.Background(), writeJob(t, "\x00asm"), client.SubmitOptions{}); err != nil {
		t.Fatal(err)
	}
	if s := fake.Submissions()[0]; string(s.Modules["ops"]) != "\x00asm" || len(s.Digests) != 0 {
		t.Errorf("submission modules %v, digests %v; want ops uploaded", s.Modules, s.Digests)
	}
}
