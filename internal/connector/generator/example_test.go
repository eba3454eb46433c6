package generator_test

import (
	"context"
	"fmt"
	"io"

	"github.com/floe-stream/floe/internal/connector"
	"github.com/floe-stream/floe/internal/connector/generator"
	"github.com/floe-stream/floe/internal/record"
)

// Subtask 1 of 3 of a sequence of ten numbers emits those congruent to 1
// modulo 3, then io.EOF.
func ExampleNewSource() {
	src, err := generator.NewSource(generator.Config{Count: 10}, connector.SplitInfo{Subtask: 1, Parallelism: 3})
	if err != nil {
		panic(err)
	}
	defer src.Close()
	var b record.Batch
	for {
		b.Reset()
		err := src.Next(context.Background(), &b, 2)
		for _, r := range b.Records {
			fmt.Println(string(r.Value))
		}
		if err == io.EOF {
			break
		}
	}
	// Output:
	// 1
	// 4
	// 7
}
