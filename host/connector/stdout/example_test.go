package stdout_test

import (
	"github.com/floe-stream/floe/host/connector/stdout"
	"github.com/floe-stream/floe/host/record"
)

// A sink with the zero Config writes to os.Stdout once flushed or closed.
func ExampleNewSink() {
	s, err := stdout.NewSink(stdout.Config{})
	if err != nil {
		panic(err)
	}
	var b record.Batch
	b.Append(nil, []byte("hello"), record.NoTimestamp)
	b.Append(nil, []byte("world"), record.NoTimestamp)
	if err := s.Write(&b); err != nil {
		panic(err)
	}
	if err := s.Close(); err != nil {
		panic(err)
	}
	// Output:
	// hello
	// world
}
