package sqlprog

import (
	"fmt"

	"github.com/floe-stream/floe/internal/sqlrow"
)

// A GROUP BY whose key holds a bound, a time after which no row of the
// group can come, is final at it: Nexmark q6's auctions grouped with their
// expires over a join that matches each auction's bids up to its expires.
// Its sqlGroup keeps the group's accumulator until the watermark passes
// the bound, then emits the group's row once, appended, and forgets it
// (Aggregation.FinalAt).

// checkFinal verifies FinalAt: a key value, a BIGINT or TIMESTAMP, in an
// aggregation that neither retracts nor takes retractions, without Wasm
// aggregates.
func (a *Aggregation) checkFinal() error {
	if a.FinalAt == nil {
		return nil
	}
	k := *a.FinalAt
	switch {
	case k < 0 || k >= a.Keys:
		return fmt.Errorf("finalAt: key value %d of %d", k, a.Keys)
	case a.Input[k] != sqlrow.BigInt && a.Input[k] != sqlrow.Timestamp:
		return fmt.Errorf("finalAt: key value %d is a %s, not a BIGINT or TIMESTAMP", k, a.Input[k])
	case a.Retracts || a.Retracted:
		return fmt.Errorf("finalAt: a final group neither retracts nor takes retractions")
	}
	for i, g := range a.Aggs {
		if g.Fn == Wasm || g.Call != nil {
			return fmt.Errorf("aggs[%d]: a final group takes built-in aggregates only", i)
		}
	}
	return nil
}
