package exchange

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/floe-stream/floe/host/record"
)

// The batch wire format carries a record.Batch between task managers:
//
//	batch   = version count record*
//	version = 0x01
//	count   = uvarint
//	record  = uvarint(len(key)) uvarint(len(value)) varint(ts - prev ts)
//	          keygroup key value
//
// keygroup is 2 bytes, little endian; varint is zigzag. A record's timestamp
// is the difference from the previous record's (0 before the first), in
// wrapping int64 arithmetic: records of one batch have close event times, so
// the difference is usually one or two bytes, and any pair of values,
// NoTimestamp included, round-trips exactly. The header of a record with a
// short key and value is 5 to 8 bytes.

const wireVersion = 1

// minWireRecord is the size of the smallest encoded record (empty key and
// value, timestamp equal to the previous one).
const minWireRecord = 1 + 1 + 1 + 2

// maxWireHeader bounds the encoded size of a record without its key and value.
const maxWireHeader = 3*binary.MaxVarintLen64 + 2

// ErrMalformedBatch is wrapped by DecodeBatch's errors.
var ErrMalformedBatch = errors.New("exchange: malformed batch")

// AppendBatch appends the wire encoding of b to dst and returns the extended
// buffer. It allocates only when dst lacks the room.
func AppendBatch(dst []byte, b *record.Batch) []byte {
	n := 1 + binary.MaxVarintLen64
	for i := range b.Records {
		n += maxWireHeader + len(b.Records[i].Key) + len(b.Records[i].Value)
	}
	dst = slices.Grow(dst, n)
	dst = append(dst, wireVersion)
	dst = binary.AppendUvarint(dst, uint64(len(b.Records)))
	var prev int64
	for i := range b.Records {
		r := &b.Records[i]
		dst = binary.AppendUvarint(dst, uint64(len(r.Key)))
		dst = binary.AppendUvarint(dst, uint64(len(r.Value)))
		dst = binary.AppendVarint(dst, r.Timestamp-prev)
		dst = binary.LittleEndian.AppendUint16(dst, r.KeyGroup)
		dst = append(dst, r.Key...)
		dst = append(dst, r.Value...)
		prev = r.Timestamp
	}
	return dst
}

// DecodeBatch appends the records encoded in src to b, copying their bytes
// into b's arena, so src may be reused once it returns. On error, which
// wraps ErrMalformedBatch, b holds the records it held before the call.
func DecodeBatch(src []byte, b *record.Batch) error {
	if len(src) == 0 {
		return fmt.Errorf("%w: empty", ErrMalformedBatch)
	}
	if src[0] != wireVersion {
		return fmt.Errorf("%w: unknown format version %d", ErrMalformedBatch, src[0])
	}
	count, n := binary.Uvarint(src[1:])
	if n <= 0 {
		return fmt.Errorf("%w: bad record count", ErrMalformedBatch)
	}
	p := src[1+n:]
	if count > uint64(len(p)/minWireRecord) {
		return fmt.Errorf("%w: %d records cannot fit in %d bytes", ErrMalformedBatch, count, len(p))
	}
	start := len(b.Records)
	b.Records = slices.Grow(b.Records, int(count))
	var ts int64
	for i := range int(count) {
		var err error
		if p, ts, err = decodeRecord(p, ts, b); err != nil {
			clear(b.Records[start:])
			b.Records = b.Records[:start]
			return fmt.Errorf("%w: record %d: %w", ErrMalformedBatch, i, err)
		}
	}
	if len(p) != 0 {
		clear(b.Records[start:])
		b.Records = b.Records[:start]
		return fmt.Errorf("%w: %d bytes after the last record", ErrMalformedBatch, len(p))
	}
	return nil
}

// Reasons decodeRecord gives; DecodeBatch adds the position.
var (
	errTruncated = errors.New("truncated header")
	errTooLong   = errors.New("key or value longer than the batch")
)

// decodeRecord decodes the record at the start of p, whose timestamp is
// relative to prev, appends it to b and returns the rest of p and the
// record's timestamp.
func decodeRecord(p []byte, prev int64, b *record.Batch) ([]byte, int64, error) {
	kl, n := binary.Uvarint(p)
	if n <= 0 {
		return nil, 0, errTruncated
	}
	p = p[n:]
	vl, n := binary.Uvarint(p)
	if n <= 0 {
		return nil, 0, errTruncated
	}
	p = p[n:]
	d, n := binary.Varint(p)
	if n <= 0 || len(p) < n+2 {
		return nil, 0, errTruncated
	}
	kg := binary.LittleEndian.Uint16(p[n:])
	p = p[n+2:]
	if kl > uint64(len(p)) || vl > uint64(len(p))-kl {
		return nil, 0, errTooLong
	}
	ts := prev + d
	b.AppendKeyed(p[:kl], p[kl:kl+vl], ts, kg)
	return p[kl+vl:], ts, nil
}
