// Command gentext writes a deterministic pseudo-random English-like text,
// the input of the word-count demo, tests and benchmarks.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"

	"github.com/floe-stream/floe/tests/textgen"
)

func main() {
	words := flag.Int("words", 1_000_000, "number of words to write")
	seed := flag.Uint64("seed", 1, "random seed")
	out := flag.String("o", "", "output file (default: stdout)")
	flag.Parse()
	w := os.Stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gentext:", err)
			os.Exit(1)
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	if err := textgen.Write(bw, *words, *seed); err == nil {
		err = bw.Flush()
	} else {
		fmt.Fprintln(os.Stderr, "gentext:", err)
		os.Exit(1)
	}
}
