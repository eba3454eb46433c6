package generator

import (
	"encoding/binary"
	"fmt"

	"github.com/floe-stream/floe/host/connector"
)

// split is the stream of subtask Subtask of Parallelism and how much of it
// has been emitted. It keeps its own sequence wherever it is restored.
type split struct {
	info    connector.SplitInfo
	emitted int64
	quota   int64 // records the split emits in all; -1 when unbounded
	value   valuer
}

// newSplit returns the split of info's stream of cfg with emitted records
// already emitted.
func newSplit(cfg Config, info connector.SplitInfo, emitted int64) split {
	sp := split{info: info, emitted: emitted, quota: quota(cfg.Count, info), value: sequence(info)}
	if cfg.Kind == KindRandom {
		sp.value = random(cfg, info)
	}
	return sp
}

// quota returns how many of count records split emits, or -1 when count is 0
// (unbounded). The first count%n subtasks emit one record more than the rest.
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

// remaining returns how many records, up to max, the split has left.
func (s *split) remaining(max int) int {
	if s.quota < 0 {
		return max
	}
	return int(min(int64(max), s.quota-s.emitted))
}

// stateVersion is the first byte of an encoded split state. Version 0 was the
// bare 8-byte count of a source before it held several splits; it is not
// accepted.
const stateVersion = 1

// stateLen is the length of an encoded split state: the version byte, then
// the subtask, the parallelism and the records emitted, as big-endian 64-bit
// integers.
const stateLen = 25

// encode returns the split state that Position hands out for s.
func (s *split) encode() []byte {
	p := make([]byte, 1, stateLen)
	p[0] = stateVersion
	p = binary.BigEndian.AppendUint64(p, uint64(s.info.Subtask))
	p = binary.BigEndian.AppendUint64(p, uint64(s.info.Parallelism))
	return binary.BigEndian.AppendUint64(p, uint64(s.emitted))
}

// decodeSplit reverses split.encode for a generator of cfg.
func decodeSplit(cfg Config, p []byte) (split, error) {
	if len(p) != stateLen || p[0] != stateVersion {
		return split{}, fmt.Errorf("generator: %w: want %d bytes of version %d", connector.ErrBadPosition, stateLen, stateVersion)
	}
	sub, par := int64(binary.BigEndian.Uint64(p[1:])), int64(binary.BigEndian.Uint64(p[9:]))
	info := connector.SplitInfo{Subtask: int(sub), Parallelism: int(par)}
	if int64(info.Subtask) != sub || int64(info.Parallelism) != par || info.Validate() != nil {
		return split{}, fmt.Errorf("generator: %w: subtask %d of parallelism %d", connector.ErrBadPosition, sub, par)
	}
	sp := newSplit(cfg, info, int64(binary.BigEndian.Uint64(p[17:])))
	if sp.emitted < 0 || (sp.quota >= 0 && sp.emitted > sp.quota) {
		return split{}, fmt.Errorf("generator: %w: %d records emitted, quota %d", connector.ErrBadPosition, sp.emitted, sp.quota)
	}
	return sp, nil
}
