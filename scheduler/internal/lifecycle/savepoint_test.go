package lifecycle

import (
	"fmt"
	"testing"

	"github.com/floe-stream/floe/scheduler/api"
)

// TestTriggersBound checks that a job keeps its last MaxSavepointTriggers
// savepoint triggers, and forgets the older ones.
func TestTriggersBound(t *testing.T) {
	for _, added := range []int{0, 1, MaxSavepointTriggers, MaxSavepointTriggers + 1, 3*MaxSavepointTriggers + 7} {
		t.Run(fmt.Sprint(added), func(t *testing.T) {
			var c checkpoints
			for i := range added {
				c.addTrigger(&api.SavepointTrigger{Trigger: fmt.Sprint("t", i)})
			}
			kept := min(added, MaxSavepointTriggers)
			if len(c.triggers) != kept {
				t.Fatalf("kept %d, want %d", len(c.triggers), kept)
			}
			if added == 0 {
				return
			}
			if c.trigger(fmt.Sprint("t", added-1)) == nil || c.trigger(fmt.Sprint("t", added-kept)) == nil {
				t.Errorf("the newest %d are not all kept", kept)
			}
			if added > kept && c.trigger(fmt.Sprint("t", added-kept-1)) != nil {
				t.Errorf("trigger t%d kept past the bound", added-kept-1)
			}
		})
	}
}
