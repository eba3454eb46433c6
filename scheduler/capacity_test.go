package scheduler

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/plan"
	floev1 "github.com/floe-stream/floe/proto/floe/v1"
	"github.com/floe-stream/floe/scheduler/api"
)

// TestCapacityRefusesJobsLargerThanTheCluster checks the check at submit:
// a job needing more slots than the live task managers have in all is
// refused with a conflict that says how many, unless it may wait; a
// cluster with no task manager yet accepts anything, as it is starting.
func TestCapacityRefusesJobsLargerThanTheCluster(t *testing.T) {
	raw, err := os.ReadFile("../udfs/wordcount/job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	planAt := func(par int) *plan.Plan {
		spec, err := jobspec.Parse(raw, "/", map[string]string{"input": "/in", "output": "/out"})
		if err != nil {
			t.Fatal(err)
		}
		if err := spec.WithParallelism(par); err != nil {
			t.Fatal(err)
		}
		p, err := plan.Build(spec)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	s, err := NewServer(Config{RPCAddr: "127.0.0.1:0", DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	if err := s.checkCapacity(planAt(64), false); err != nil {
		t.Errorf("no task manager yet: %v, want the job accepted", err)
	}
	for _, slots := range []int32{2, 3} {
		if _, err := s.Register(context.Background(), &floev1.RegisterRequest{RpcAddr: "127.0.0.1:1", Slots: slots}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		par  int
		wait bool
		ok   bool
	}{
		{par: 1, ok: true},
		{par: 5, ok: true},
		{par: 6},
		{par: 6, wait: true, ok: true},
		{par: 64},
	}
	for _, tt := range tests {
		err := s.checkCapacity(planAt(tt.par), tt.wait)
		switch {
		case tt.ok && err != nil:
			t.Errorf("parallelism %d, wait %v: %v, want accepted", tt.par, tt.wait, err)
		case !tt.ok && (!errors.Is(err, api.ErrConflict) || !strings.Contains(err.Error(), "2 task manager(s) have 5 in all")):
			t.Errorf("parallelism %d, wait %v: %v, want a conflict naming the cluster's 5 slots", tt.par, tt.wait, err)
		}
	}
}
