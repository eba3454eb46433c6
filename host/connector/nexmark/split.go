package nexmark

import (
	"encoding/binary"
	"fmt"

	"github.com/floe-stream/floe/host/connector"
)

// split is the share of the stream of subtask info.Subtask of
// info.Parallelism: the event numbers congruent to the subtask modulo the
// parallelism, in increasing order. It keeps that share wherever it is
// restored.
type split struct {
	info connector.SplitInfo
	// emitted counts the event numbers of the share taken so far: those
	// emitted, and for a source of one kind of event those of other kinds
	// it skipped.
	emitted int64
	quota   int64 // events of the share in all; -1 when unbounded
}

// newSplit returns the split of info's share of count events (0: unbounded)
// with emitted events already emitted.
func newSplit(count int64, info connector.SplitInfo, emitted int64) split {
	return split{info: info, emitted: emitted, quota: quota(count, info)}
}

// quota returns how many of count events split emits, or -1 when count is 0
// (unbounded). The first count%n subtasks emit one event more than the rest.
func quota(count int64, split connector.SplitInfo) int64 {
	if count == 0 {
		return -1
	}
	n, i := int64(split.Parallelism), int64(split.Subtask)
	q := count / n
	if i < count%n {
		q++
	}
	return q
}

// next returns the number of the split's next event.
func (s *split) next() int64 {
	return int64(s.info.Subtask) + s.emitted*int64(s.info.Parallelism)
}

// done reports whether the split has emitted its whole share.
func (s *split) done() bool {
	return s.quota >= 0 && s.emitted >= s.quota
}

// remaining returns how many events, up to max, the split has left.
func (s *split) remaining(max int) int {
	if s.quota < 0 {
		return max
	}
	return int(min(int64(max), s.quota-s.emitted))
}

// A split state is stateLen bytes: stateMagic, stateVersion, then the
// subtask, the parallelism and the events emitted as big-endian 64-bit
// integers.
const (
	stateMagic   = 'N'
	stateVersion = 1
	stateLen     = 26
)

// encode returns the split state that Position hands out for s.
func (s *split) encode() []byte {
	p := make([]byte, 2, stateLen)
	p[0], p[1] = stateMagic, stateVersion
	p = binary.BigEndian.AppendUint64(p, uint64(s.info.Subtask))
	p = binary.BigEndian.AppendUint64(p, uint64(s.info.Parallelism))
	return binary.BigEndian.AppendUint64(p, uint64(s.emitted))
}

// decodeSplit reverses split.encode for a source of count events.
func decodeSplit(count int64, p []byte) (split, error) {
	if len(p) != stateLen || p[0] != stateMagic || p[1] != stateVersion {
		return split{}, fmt.Errorf("nexmark: %w: want %d bytes starting %q, version %d", connector.ErrBadPosition, stateLen, stateMagic, stateVersion)
	}
	sub, par := int64(binary.BigEndian.Uint64(p[2:])), int64(binary.BigEndian.Uint64(p[10:]))
	info := connector.SplitInfo{Subtask: int(sub), Parallelism: int(par)}
	if int64(info.Subtask) != sub || int64(info.Parallelism) != par || info.Validate() != nil {
		return split{}, fmt.Errorf("nexmark: %w: subtask %d of parallelism %d", connector.ErrBadPosition, sub, par)
	}
	sp := newSplit(count, info, int64(binary.BigEndian.Uint64(p[18:])))
	if sp.emitted < 0 || (sp.quota >= 0 && sp.emitted > sp.quota) {
		return split{}, fmt.Errorf("nexmark: %w: %d events emitted, quota %d", connector.ErrBadPosition, sp.emitted, sp.quota)
	}
	return sp, nil
}
