package task

import (
	"context"
	"math"

	"github.com/floe-stream/floe/host/udf"
)

// endWindows fires, at the end of the task's input, the processing-time
// windows still open: each fires now with the records it holds. Unlike a
// processing-time timer of a user's operator, which says "at this wall
// clock time" and does not fire at the end (endTimers), a window's result
// is what arrived while it was open, and once the input has ended nothing
// more can arrive: firing it early gives the result it would have had at
// its end, so a bounded job counts every record in some window
// (docs/event-time.md, "Processing-time windows").
func (t *Task) endWindows(ctx context.Context) error {
	fired := 0
	for i := range t.timed {
		op := &t.timed[i]
		if w, ok := op.in.(windowOp); !ok || !w.ProcessingTime() {
			continue
		}
		n, err := t.fireDue(ctx, op, udf.ProcessingTime, math.MaxInt64)
		fired += n
		if err != nil {
			return err
		}
	}
	if fired > 0 {
		t.publishStateSizes()
		if t.router != nil {
			return t.router.Flush(ctx)
		}
	}
	return nil
}
