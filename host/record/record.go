// Package record defines the unit of data that flows between Floe's operators
// and the batch that carries many of them at once.
//
// Records never travel alone: sources fill a Batch, operators consume one and
// fill another, exchanges ship whole batches. A Batch owns the bytes of its
// records in an arena, so filling and recycling a batch allocates nothing once
// it has grown to its working size.
package record

import "bytes"

// Record is one element of a stream. Key is empty until a keyBy assigns one;
// Timestamp is the event time in milliseconds since the epoch, or NoTimestamp.
//
// The slices belong to the Batch that holds the record: they stay valid until
// that batch is Reset, and a consumer that keeps them longer must copy them.
type Record struct {
	Key       []byte
	Value     []byte
	Timestamp int64
	// KeyGroup is the key group of Key, set by the keyBy that assigned the key
	// so that downstream operators need not hash it again.
	KeyGroup uint16
}

// NoTimestamp marks a record without an event time.
const NoTimestamp int64 = -1 << 63

// Batch is an ordered run of records and the arena that holds their bytes.
// The zero value is an empty batch ready for use. A Batch is not safe for
// concurrent use; ownership passes with the batch.
type Batch struct {
	Records []Record
	arena   []byte
}

// minArena is the first arena size of a batch, so small batches do not grow
// their arena byte by byte.
const minArena = 4096

// Len returns the number of records in the batch.
func (b *Batch) Len() int { return len(b.Records) }

// Bytes returns the number of payload bytes (keys and values) held.
func (b *Batch) Bytes() int { return len(b.arena) }

// Append copies key and value into the batch's arena and adds a record.
func (b *Batch) Append(key, value []byte, ts int64) {
	b.AppendKeyed(key, value, ts, 0)
}

// AppendKeyed is Append for a record whose key group is already known.
func (b *Batch) AppendKeyed(key, value []byte, ts int64, kg uint16) {
	k := b.copy(key)
	v := b.copy(value)
	b.Records = append(b.Records, Record{Key: k, Value: v, Timestamp: ts, KeyGroup: kg})
}

// AppendRecord copies r, with its key group, into the batch.
func (b *Batch) AppendRecord(r *Record) {
	b.AppendKeyed(r.Key, r.Value, r.Timestamp, r.KeyGroup)
}

// copy places p in the arena and returns the arena's copy. When the arena is
// full a new, larger one is started; records already appended keep pointing
// into the old one, which the garbage collector frees once the batch is Reset.
func (b *Batch) copy(p []byte) []byte {
	if len(p) == 0 {
		return nil
	}
	if cap(b.arena)-len(b.arena) < len(p) {
		n := 2 * cap(b.arena)
		if n < minArena {
			n = minArena
		}
		for n < len(p) {
			n *= 2
		}
		b.arena = make([]byte, 0, n)
	}
	start := len(b.arena)
	b.arena = append(b.arena, p...)
	return b.arena[start:len(b.arena):len(b.arena)]
}

// Reset empties the batch, keeping its capacity for reuse. Slices handed out
// for earlier records must no longer be used.
func (b *Batch) Reset() {
	clear(b.Records)
	b.Records = b.Records[:0]
	b.arena = b.arena[:0]
}

// CSVField returns the n-th (0-based) comma-separated field of v, and
// whether v has that many fields. It is the field a keyBy with key csv:n
// takes, and a timestamp field csv:n reads.
func CSVField(v []byte, n int) ([]byte, bool) {
	for ; n > 0; n-- {
		i := bytes.IndexByte(v, ',')
		if i < 0 {
			return nil, false
		}
		v = v[i+1:]
	}
	if i := bytes.IndexByte(v, ','); i >= 0 {
		return v[:i], true
	}
	return v, true
}
