package task

import (
	"context"
	"fmt"

	"github.com/floe-stream/floe/host/record"
	"github.com/floe-stream/floe/internal/jobspec"
	"github.com/floe-stream/floe/internal/sqlrow"
	"github.com/floe-stream/floe/storage/keygroup"
)

// keyer is the built-in step of a keyBy: it sets each record's key and key
// group. With a Wasm key selector, the selector computes the keys.
type keyer struct {
	sel            jobspec.KeySelector
	selector       Operator // KeyFunction only
	keys           record.Batch
	maxParallelism int
}

// Process implements Operator.
func (k *keyer) Process(ctx context.Context, in, out *record.Batch) error {
	if k.sel.Kind == jobspec.KeyFunction {
		k.keys.Reset()
		if err := k.selector.Process(ctx, in, &k.keys); err != nil {
			return err
		}
		if k.keys.Len() != in.Len() {
			return fmt.Errorf("key selector returned %d keys for %d records", k.keys.Len(), in.Len())
		}
	}
	for i := range in.Records {
		r := &in.Records[i]
		key := k.key(i, r.Value)
		out.AppendKeyed(key, r.Value, r.Timestamp, keygroup.Of(key, k.maxParallelism))
	}
	return nil
}

// key returns the key of record i, whose value is v.
func (k *keyer) key(i int, v []byte) []byte {
	switch k.sel.Kind {
	case jobspec.KeyFunction:
		return k.keys.Records[i].Value
	case jobspec.KeyCSV:
		f, _ := record.CSVField(v, k.sel.Field) // NB: fewer fields: an empty key
		return f
	case jobspec.KeyRow:
		n, err := sqlrow.PrefixLen(v, k.sel.Field)
		if err != nil {
			return nil // NB: the SQL window fails on the row itself
		}
		return v[:n]
	case jobspec.KeyRowText:
		n, err := sqlrow.PrefixLen(v, k.sel.Field)
		if err != nil {
			return nil // NB: as for KeyRow
		}
		row, err := sqlrow.DecodeRow(nil, v[:n], k.sel.Field)
		if err != nil {
			return nil
		}
		return sqlrow.AppendCSV(nil, row)
	}
	return v
}

// Close implements Operator.
func (k *keyer) Close(ctx context.Context) error {
	if k.selector != nil {
		return k.selector.Close(ctx)
	}
	return nil
}
