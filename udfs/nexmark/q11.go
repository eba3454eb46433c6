package main

import floe "github.com/floe-stream/floe/sdk/go"

// q11, user sessions: the bids of each bidder in session windows with a
// gap of 10 s of event time, as "bidder,bids,sessionStart,sessionEnd"
// (Flink's q11). The spec keys bids by bidder and counts them in a
// built-in session window; bid-sessions is the count's aggregate.

func init() {
	floe.Aggregate("bid-sessions", floe.Int64, floe.AggregateFunc[int64]{
		Create: func() int64 { return 0 },
		Add:    func(n int64, _ floe.Record) int64 { return n + 1 },
		Merge:  func(a, b int64) int64 { return a + b },
		Result: func(key []byte, w floe.Window, n int64, emit floe.Emitter) error {
			line = append(append(line[:0], key...), ',')
			line = append(floe.AppendInt(line, n), ',')
			line = append(floe.AppendInt(line, w.Start), ',')
			emit.Emit(floe.AppendInt(line, w.End))
			return nil
		},
	})
}
