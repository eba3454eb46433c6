package file

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/record"
)

// TestBytesReadReachTheFileSize checks the property the progress metric
// rests on: for every parallelism, the subtasks' totals add up to the file's
// size, what each has read never goes back or past its total, and once every
// subtask has reached the end they have read the whole file.
func TestBytesReadReachTheFileSize(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 20 {
		content := randomContent(r)
		path := writeTemp(t, content)
		for _, n := range parallelisms(len(content)) {
			var read, total int64
			for sub := range n {
				src, err := OpenSource(SourceConfig{Path: path, BufferSize: 16}, connector.SplitInfo{Subtask: sub, Parallelism: n})
				if err != nil {
					t.Fatal(err)
				}
				p := src.(connector.Progress)
				last, tot := p.BytesRead()
				if last != 0 {
					t.Fatalf("file %d, subtask %d/%d: %d bytes read before the first Next", i, sub, n, last)
				}
				var b record.Batch
				for {
					b.Reset()
					err := src.Next(context.Background(), &b, 1+r.IntN(5))
					got, gotTotal := p.BytesRead()
					if got < last || got > tot || gotTotal != tot {
						t.Fatalf("file %d, subtask %d/%d: read %d of %d after %d of %d", i, sub, n, got, gotTotal, last, tot)
					}
					last = got
					if errors.Is(err, io.EOF) {
						break
					} else if err != nil {
						t.Fatal(err)
					}
				}
				src.Close()
				read, total = read+last, total+tot
			}
			if total != int64(len(content)) || read != total {
				t.Fatalf("file %d, parallelism %d: read %d of %d bytes, file has %d", i, n, read, total, len(content))
			}
		}
	}
}
