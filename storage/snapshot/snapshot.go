// Package snapshot is the file format of keyed-state snapshots: a run of
// operations on state store keys (put, delete, delete a range), sorted by
// key and therefore grouped by key group, with an index of key-group blocks
// at the end so a reader fetches only the key groups it owns.
//
// A full snapshot holds a put for every entry; a delta holds what changed
// since the previous snapshot of the same store. Restoring applies a full
// snapshot and then its deltas, in order.
//
// Layout (integers little-endian):
//
//	"FLOESNP1"
//	blocks:   per key group, its operations:
//	          op u8 | uvarint key length | key | uvarint value length | value
//	index:    per block: kg u16 | offset u64 | length u64 | crc32c u32
//	trailer:  block count u32 | index offset u64 | index crc32c u32 | "FLOEEND1"
//
// Every block and the index carry a CRC-32C, checked when they are read.
package snapshot

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sort"

	"github.com/floe-stream/floe/storage/keygroup"
)

// Op is a state operation.
type Op uint8

// The operations of a snapshot.
const (
	// Put sets key to value.
	Put Op = 1
	// Delete removes key.
	Delete Op = 2
	// DeleteRange removes the keys in [key, value).
	DeleteRange Op = 3
)

const (
	magic   = "FLOESNP1"
	endMark = "FLOEEND1"
	trailer = 4 + 8 + 4 + len(endMark)
	entry   = 2 + 8 + 8 + 4
)

// ErrCorrupt is wrapped by every error about a malformed snapshot.
var ErrCorrupt = errors.New("snapshot: corrupt")

var table = crc32.MakeTable(crc32.Castagnoli)

// block is one key group's index entry.
type block struct {
	kg          uint16
	off, length uint64
	crc         uint32
}

// Writer writes a snapshot. Operations must come in ascending key order,
// keys starting with their 2-byte key group.
type Writer struct {
	w       *bufio.Writer
	off     uint64
	blocks  []block
	crc     uint32
	last    []byte
	scratch []byte
	err     error
}

// NewWriter starts a snapshot on w.
func NewWriter(w io.Writer) *Writer {
	sw := &Writer{w: bufio.NewWriterSize(w, 256<<10)}
	sw.write([]byte(magic))
	return sw
}

func (w *Writer) write(p []byte) {
	if w.err != nil {
		return
	}
	_, w.err = w.w.Write(p)
	w.off += uint64(len(p))
}

// Add appends an operation.
func (w *Writer) Add(op Op, key, value []byte) error {
	if w.err != nil {
		return w.err
	}
	if len(key) < 2 {
		return fmt.Errorf("snapshot: key %q has no key group", key)
	}
	if w.last != nil && bytes.Compare(key, w.last) < 0 {
		return fmt.Errorf("snapshot: key %q after %q: keys must ascend", key, w.last)
	}
	w.last = append(w.last[:0], key...)
	kg := binary.BigEndian.Uint16(key)
	if n := len(w.blocks); n == 0 || w.blocks[n-1].kg != kg {
		w.endBlock()
		w.blocks = append(w.blocks, block{kg: kg, off: w.off})
	}
	b := w.scratch[:0]
	b = append(b, byte(op))
	b = binary.AppendUvarint(b, uint64(len(key)))
	b = append(b, key...)
	b = binary.AppendUvarint(b, uint64(len(value)))
	b = append(b, value...)
	w.scratch = b
	w.crc = crc32.Update(w.crc, table, b)
	w.write(b)
	return w.err
}

// endBlock closes the current block's index entry.
func (w *Writer) endBlock() {
	if n := len(w.blocks); n > 0 {
		blk := &w.blocks[n-1]
		blk.length = w.off - blk.off
		blk.crc = w.crc
	}
	w.crc = 0
}

// Close writes the index and trailer and flushes. It does not close the
// underlying writer.
func (w *Writer) Close() error {
	w.endBlock()
	indexOff := w.off
	var b []byte
	for _, blk := range w.blocks {
		b = binary.LittleEndian.AppendUint16(b, blk.kg)
		b = binary.LittleEndian.AppendUint64(b, blk.off)
		b = binary.LittleEndian.AppendUint64(b, blk.length)
		b = binary.LittleEndian.AppendUint32(b, blk.crc)
	}
	sum := crc32.Checksum(b, table)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(w.blocks)))
	b = binary.LittleEndian.AppendUint64(b, indexOff)
	b = binary.LittleEndian.AppendUint32(b, sum)
	b = append(b, endMark...)
	w.write(b)
	if w.err == nil {
		w.err = w.w.Flush()
	}
	return w.err
}

// Size returns the bytes written so far.
func (w *Writer) Size() int64 { return int64(w.off) }

// chunkBytes is how much Read fetches at a time: enough consecutive blocks
// to make a read from an object store worth its round trip, little enough
// that a restore's memory does not grow with the snapshot (issue 22).
const chunkBytes = 4 << 20

// Read calls fn for every operation of the key groups in rng, in file
// order, reading only their blocks. It reads them a chunk of consecutive
// blocks at a time, up to 4 MiB unless one key group's block is larger,
// into one reused buffer: its memory is bounded by the chunk, not the
// range. The slices are valid during the call only; the buffer behind
// them is overwritten by the next chunk. NB: an error, a failed read as
// well as a corrupt block, may come after fn has been called for the
// operations of earlier chunks. It returns the number of bytes it read.
func Read(r io.ReaderAt, size int64, rng keygroup.Range, fn func(op Op, key, value []byte) error) (int64, error) {
	blocks, read, err := readIndex(r, size)
	if err != nil {
		return read, err
	}
	i := sort.Search(len(blocks), func(i int) bool { return int(blocks[i].kg) >= rng.Start })
	j := i
	for j < len(blocks) && int(blocks[j].kg) < rng.End {
		j++
	}
	var buf []byte
	for i < j {
		k := chunkEnd(blocks[i:j]) + i
		buf, err = readChunk(r, size, blocks[i:k], buf, fn)
		if err != nil {
			return read, err
		}
		read += int64(len(buf))
		i = k
	}
	return read, nil
}

// chunkEnd returns how many of blocks, at least one, Read fetches at once.
func chunkEnd(blocks []block) int {
	n, total := 1, blocks[0].length
	for n < len(blocks) && total+blocks[n].length <= chunkBytes {
		total += blocks[n].length
		n++
	}
	return n
}

// readChunk reads the consecutive blocks into buf, grown if it is too
// small, checks them and calls fn for their operations. It returns the
// bytes it read, backed by buf.
func readChunk(r io.ReaderAt, size int64, blocks []block, buf []byte, fn func(op Op, key, value []byte) error) ([]byte, error) {
	// The blocks of a range are contiguous: one read fetches them all.
	first, last := blocks[0], blocks[len(blocks)-1]
	end := last.off + last.length
	if end > uint64(size) || first.off > end {
		return buf, fmt.Errorf("%w: blocks of key groups %d..%d beyond the end", ErrCorrupt, first.kg, last.kg)
	}
	n := end - first.off
	if uint64(cap(buf)) < n {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := r.ReadAt(buf, int64(first.off)); err != nil {
		return buf, fmt.Errorf("snapshot: reading key groups %d..%d: %w", first.kg, last.kg, err)
	}
	for _, blk := range blocks {
		lo := blk.off - first.off
		if blk.off < first.off || lo+blk.length > n {
			return buf, fmt.Errorf("%w: block of key group %d overlaps", ErrCorrupt, blk.kg)
		}
		b := buf[lo : lo+blk.length]
		if crc32.Checksum(b, table) != blk.crc {
			return buf, fmt.Errorf("%w: checksum mismatch in key group %d", ErrCorrupt, blk.kg)
		}
		if err := parseBlock(b, fn); err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// readIndex reads the trailer and the block index.
func readIndex(r io.ReaderAt, size int64) ([]block, int64, error) {
	if size < int64(len(magic)+trailer) {
		return nil, 0, fmt.Errorf("%w: %d bytes is too short", ErrCorrupt, size)
	}
	t := make([]byte, trailer)
	if _, err := r.ReadAt(t, size-int64(trailer)); err != nil {
		return nil, 0, fmt.Errorf("snapshot: reading trailer: %w", err)
	}
	if string(t[16:]) != endMark {
		return nil, int64(trailer), fmt.Errorf("%w: no end mark", ErrCorrupt)
	}
	n := uint64(binary.LittleEndian.Uint32(t))
	off := binary.LittleEndian.Uint64(t[4:])
	if off+n*entry != uint64(size-int64(trailer)) {
		return nil, int64(trailer), fmt.Errorf("%w: index of %d blocks at %d does not fit", ErrCorrupt, n, off)
	}
	if off < uint64(len(magic)) {
		return nil, int64(trailer), fmt.Errorf("%w: index inside the header", ErrCorrupt)
	}
	head := make([]byte, len(magic))
	if _, err := r.ReadAt(head, 0); err != nil || string(head) != magic {
		return nil, int64(trailer), fmt.Errorf("%w: not a snapshot (no %q header)", ErrCorrupt, magic)
	}
	idx := make([]byte, n*entry)
	if _, err := r.ReadAt(idx, int64(off)); err != nil {
		return nil, int64(trailer), fmt.Errorf("snapshot: reading index: %w", err)
	}
	if crc32.Checksum(idx, table) != binary.LittleEndian.Uint32(t[12:]) {
		return nil, int64(trailer), fmt.Errorf("%w: index checksum mismatch", ErrCorrupt)
	}
	blocks := make([]block, n)
	for i := range blocks {
		e := idx[i*entry:]
		blocks[i] = block{
			kg: binary.LittleEndian.Uint16(e), off: binary.LittleEndian.Uint64(e[2:]),
			length: binary.LittleEndian.Uint64(e[10:]), crc: binary.LittleEndian.Uint32(e[18:]),
		}
	}
	return blocks, int64(trailer) + int64(len(idx)), nil
}

// parseBlock calls fn for each operation in a block.
func parseBlock(b []byte, fn func(op Op, key, value []byte) error) error {
	for len(b) > 0 {
		op := Op(b[0])
		if op < Put || op > DeleteRange {
			return fmt.Errorf("%w: unknown operation %d", ErrCorrupt, op)
		}
		key, rest, err := field(b[1:])
		if err != nil {
			return err
		}
		value, rest, err := field(rest)
		if err != nil {
			return err
		}
		if err := fn(op, key, value); err != nil {
			return err
		}
		b = rest
	}
	return nil
}

func field(b []byte) ([]byte, []byte, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < n {
		return nil, nil, fmt.Errorf("%w: truncated field", ErrCorrupt)
	}
	return b[k : k+int(n)], b[k+int(n):], nil
}
