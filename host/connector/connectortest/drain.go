package connectortest

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/record"
)

// Drain calls Next with batches of at most max records until src returns
// io.EOF, and returns the values of all records in order. It checks the
// Source contract on the way: no batch exceeds max, and io.EOF comes with
// an empty batch.
func Drain(ctx context.Context, src connector.Source, max int) ([]string, error) {
	var got []string
	var b record.Batch
	for {
		b.Reset()
		err := src.Next(ctx, &b, max)
		if b.Len() > max {
			return got, fmt.Errorf("connectortest: Next returned %d records, max %d", b.Len(), max)
		}
		if errors.Is(err, io.EOF) && b.Len() > 0 {
			return got, fmt.Errorf("connectortest: Next returned %d records with io.EOF", b.Len())
		}
		got = AppendValues(got, &b)
		if errors.Is(err, io.EOF) {
			return got, nil
		}
		if err != nil {
			return got, err
		}
	}
}

// Take calls Next at most calls times with batches of at most max records,
// stopping early at io.EOF, and returns the values read. It is the partial
// read a test does before taking a Position.
func Take(ctx context.Context, src connector.Source, max, calls int) ([]string, error) {
	var got []string
	var b record.Batch
	for range calls {
		b.Reset()
		err := src.Next(ctx, &b, max)
		got = AppendValues(got, &b)
		if errors.Is(err, io.EOF) {
			return got, nil
		}
		if err != nil {
			return got, err
		}
	}
	return got, nil
}

// AppendValues appends the value of each record of b, as a string, to dst.
func AppendValues(dst []string, b *record.Batch) []string {
	for i := range b.Records {
		dst = append(dst, string(b.Records[i].Value))
	}
	return dst
}
