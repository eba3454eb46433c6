// Command wordcount is Floe's example operator module: it splits lines into
// words and counts each word in keyed state.
//
// Build it to WebAssembly with `make udfs` (or
// `GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o wordcount.wasm .`)
// and run job.yaml with `floe run`.
package main

import (
	"strconv"

	floe "github.com/floe-stream/floe/sdk/go"
)

func init() {
	floe.FlatMap("split", split)
	floe.Process("count", count)
}

// counts holds each word's number of occurrences so far. It is queryable, so
// a running job answers "how often has this word been seen?".
var counts = floe.NewValueState("counts", floe.Int64, floe.Queryable())

// lower holds the lower-cased copy of the line being split.
var lower []byte

// split emits the lower-cased words of a line. A word is a run of ASCII
// letters and digits; every other byte separates words.
func split(line []byte, out floe.Emitter) error {
	lower = append(lower[:0], line...)
	start := -1
	for i, c := range lower {
		switch {
		case 'A' <= c && c <= 'Z':
			lower[i] = c + 'a' - 'A'
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		default:
			if start >= 0 {
				out.Emit(lower[start:i])
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out.Emit(lower[start:])
	}
	return nil
}

// line holds the output record being built.
var line []byte

// count adds one to the word's count and emits "word,count".
func count(ctx *floe.Context, word []byte, out floe.Emitter) error {
	n, _ := counts.Get(ctx)
	n++
	counts.Put(ctx, n)
	line = append(append(line[:0], word...), ',')
	out.Emit(strconv.AppendInt(line, n, 10))
	return nil
}

func main() {}
