package generator_test

import (
	"context"
	"fmt"
	"io"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/connector/generator"
	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/internal/ckmeta"
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

// A sequence of six numbers runs at parallelism 2 until each subtask has
// emitted one number, then is rescaled to parallelism 1: the single new
// instance continues both old splits, each in its own residue class.
func Example_rescale() {
	cfg := generator.Config{Count: 6}
	var states [][][]byte
	for i := range 2 {
		src, _ := generator.NewSource(cfg, connector.SplitInfo{Subtask: i, Parallelism: 2})
		var b record.Batch
		src.Next(context.Background(), &b, 1)
		fmt.Println("subtask", i, "of 2:", string(b.Records[0].Value))
		pos, _ := src.Position()
		states = append(states, pos)
		src.Close()
	}
	src, _ := generator.NewSource(cfg, connector.SplitInfo{Subtask: 0, Parallelism: 1})
	defer src.Close()
	if err := src.Seek(ckmeta.EvenSplit(states, 1)[0]); err != nil {
		panic(err)
	}
	var b record.Batch
	for src.Next(context.Background(), &b, 10) == nil {
		for _, r := range b.Records {
			fmt.Println("rescaled to 1:", string(r.Value))
		}
		b.Reset()
	}
	// Output:
	// subtask 0 of 2: 0
	// subtask 1 of 2: 1
	// rescaled to 1: 2
	// rescaled to 1: 4
	// rescaled to 1: 3
	// rescaled to 1: 5
}
