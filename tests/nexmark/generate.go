package nexmark

import "github.com/floe-stream/floe/host/connector/nexmark"

// Generate returns the lines of events 0 to count-1 of the stream that a
// nexmark source with eventsPerSecond (0 for the default) and seed
// produces, in event order. Whatever its parallelism and rescales, a
// bounded nexmark source emits exactly these lines, so a test can compute
// its expected results from them.
func Generate(count, eventsPerSecond, seed int64) []string {
	g := nexmark.NewGenerator(eventsPerSecond, seed)
	lines := make([]string, count)
	var buf []byte
	for n := range count {
		buf, _ = g.Append(buf[:0], n)
		lines[n] = string(buf)
	}
	return lines
}
