package file

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/connector/connectortest"
	"github.com/floe-stream/floe/host/record"
)

// TestFollowOnSystemClockWhileAWriterAppends follows a file that another
// goroutine writes, each line in two writes, and checks that the reader gets
// every line once and whole, then stops on cancellation.
func TestFollowOnSystemClockWhileAWriterAppends(t *testing.T) {
	const lines = 50
	path := writeTemp(t, nil)
	src, err := OpenSource(SourceConfig{Path: path, Follow: true}, connector.SplitInfo{Subtask: 0, Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	// The timeout only keeps a broken source from hanging the test.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := appendSlowly(path, lines); err != nil {
			t.Error(err)
		}
	})
	got, err := readUntil(ctx, src, lines)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if want := numberedLines(lines); !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	cancel()
	var b record.Batch
	if err := src.Next(ctx, &b, 10); !errors.Is(err, context.Canceled) {
		t.Errorf("Next after cancel = %v, want context.Canceled", err)
	}
}

// appendSlowly appends numberedLines(n) to the file at path, writing each line
// in two halves with a pause in between, so that a reader sees partial lines.
func appendSlowly(path string, n int) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	for _, line := range numberedLines(n) {
		if _, err := f.WriteString(line[:3]); err != nil {
			return err
		}
		time.Sleep(time.Millisecond)
		if _, err := f.WriteString(line[3:] + "\n"); err != nil {
			return err
		}
	}
	return nil
}

// numberedLines returns the lines "line-0", "line-1", ... of n lines.
func numberedLines(n int) []string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprint("line-", i)
	}
	return lines
}

// readUntil calls Next until it has read n lines; an unbounded source must
// not return io.EOF.
func readUntil(ctx context.Context, src connector.Source, n int) ([]string, error) {
	var got []string
	var b record.Batch
	for len(got) < n {
		b.Reset()
		if err := src.Next(ctx, &b, 7); err != nil {
			return got, err
		}
		got = connectortest.AppendValues(got, &b)
	}
	return got, nil
}
