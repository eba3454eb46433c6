package minicluster

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
)

// TestJobNamesAPushedModuleByDigest pushes the wordcount module once and
// runs a job whose spec names it as name@sha256:digest, with no module
// uploaded; it checks what a reference may not do (an unknown digest,
// another name, a function the module lacks) and that the module cannot be
// deleted while a job runs it.
func TestJobNamesAPushedModuleByDigest(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	input := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(input, []byte("a b a\nc a b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := wordcount(t, dir, input, filepath.Join(dir, "out"), "", 1)
	c, err := Start(ctx, Config{DataDir: filepath.Join(dir, "data")})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	mod := sub.Modules["wordcount"]
	info, err := c.Scheduler.PushModule(ctx, "wordcount", mod)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(mod)
	d := hex.EncodeToString(sum[:])
	if info.Digest != d || info.Name != "wordcount" || info.Size != int64(len(mod)) ||
		info.Functions["split"] != "flatMap" || info.Functions["count"] != "process" {
		t.Fatalf("PushModule = %+v, want digest %s and the functions split (flatMap) and count (process)", info, d)
	}

	byRef := func(ref, from, to string) api.Submission {
		s := sub
		s.Modules = nil
		s.Spec = bytes.Replace(sub.Spec, []byte("wordcount: wordcount.wasm"), []byte("wordcount: "+ref), 1)
		s.Spec = bytes.Replace(s.Spec, []byte(from), []byte(to), 1)
		return s
	}
	for _, tt := range []struct {
		name string
		sub  api.Submission
		want string
	}{
		{"unknown digest", byRef("wordcount@sha256:"+strings.Repeat("0", 64), "", ""), `module "wordcount": the scheduler has no module sha256:` + strings.Repeat("0", 64)},
		{"another name", byRef("wc@sha256:"+d, "", ""), `was pushed as "wordcount", not "wc"`},
		{"absent function", byRef("sha256:"+d, "function: split", "function: splti"), `did you mean "split"?`},
	} {
		if _, err := c.Scheduler.Submit(ctx, tt.sub); !errors.Is(err, api.ErrBadRequest) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Submit = %v, want a bad request saying %q", tt.name, err, tt.want)
		}
	}

	id, err := c.Scheduler.Submit(ctx, byRef("wordcount@sha256:"+d, "", ""))
	if err != nil {
		t.Fatal(err)
	}
	if st := waitEnd(t, c, id); st.State != api.JobFinished {
		t.Fatalf("job %s: %s", st.State, st.Message)
	}
	got := maxCounts(t, filepath.Join(dir, "out"))
	if want := map[string]int64{"a": 3, "b": 2, "c": 1}; len(got) != len(want) || got["a"] != 3 || got["b"] != 2 || got["c"] != 1 {
		t.Errorf("counts %v, want %v", got, want)
	}

	// A job that follows its input runs until canceled: meanwhile its
	// module cannot be deleted.
	follow := byRef("sha256:"+d, "", "")
	follow.Params = map[string]string{"input": input, "output": filepath.Join(dir, "out2"), "follow": "true"}
	running, err := c.Scheduler.Submit(ctx, follow)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Scheduler.DeleteModule(ctx, d); !errors.Is(err, api.ErrConflict) || !strings.Contains(err.Error(), running) {
		t.Errorf("DeleteModule while job %s runs = %v, want a conflict naming it", running, err)
	}
	if err := c.Scheduler.Cancel(ctx, running); err != nil {
		t.Fatal(err)
	}
	waitEnd(t, c, running)
	if err := c.Scheduler.DeleteModule(ctx, d); err != nil {
		t.Fatalf("DeleteModule once no job runs it: %v", err)
	}
	if _, err := c.Scheduler.Module(ctx, d); !errors.Is(err, api.ErrNotFound) {
		t.Errorf("Module after delete = %v, want not found", err)
	}
	if _, err := c.Scheduler.Submit(ctx, byRef("sha256:"+d, "", "")); !errors.Is(err, api.ErrBadRequest) {
		t.Errorf("Submit naming a deleted module = %v, want a bad request", err)
	}
}

// waitEnd polls job id until it has ended and returns its status.
func waitEnd(t *testing.T, c *Cluster, id string) api.JobStatus {
	t.Helper()
	for {
		st, err := c.Scheduler.Job(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if api.Terminal(st.State) {
			return st
		}
		time.Sleep(10 * time.Millisecond)
	}
}
