package kafka

import (
	"encoding/json"
	"fmt"
	"hash/fnv"

	"github.com/floe-stream/floe/host/connector"
)

// stateVersion is the "v" of every encoded split state.
const stateVersion = 1

// offsetEarliest is the offset of a partition split that starts at the
// partition's first record, whichever it is when reading begins.
const offsetEarliest = -2

// split is one element of a source's list state: either a partition and
// the offset of the next record to read from it, or a claim rule (see
// rule). Exactly one of partition and rule is meaningful.
type split struct {
	V         int    `json:"v"`
	Topic     string `json:"topic,omitempty"`
	Partition int32  `json:"partition"`
	// Offset is the offset of the next record to emit, or offsetEarliest.
	Offset int64 `json:"offset"`
	Rule   *rule `json:"rule,omitempty"`
}

// rule is the right to claim partitions that no split covers yet. The
// source of subtask Index of a fresh start at parallelism Of holds rule
// (Of, Index), which owns every partition p of topic t with
// (fnv32a(t) + p) mod Of == Index. Rules are never created again after the
// fresh start; they move between subtasks as list elements do, so each is
// held by exactly one subtask at any time.
//
// Seen records, per topic, how many partitions the holder has looked at:
// every owned partition below Seen[t] has been claimed, and has a
// partition split of its own somewhere, while owned partitions from
// Seen[t] on have not. Partitions only ever grow in number, so that is the
// whole claim history.
type rule struct {
	Of    int              `json:"of"`
	Index int              `json:"index"`
	Seen  map[string]int32 `json:"seen"`
	// Started tells that the holder has looked at the topics once:
	// partitions found in that first look start from the configured start
	// position, partitions found later from their earliest offset.
	Started bool `json:"started"`
}

// owns reports whether partition p of topic t belongs to r.
func (r *rule) owns(t string, p int32) bool {
	h := fnv.New32a()
	h.Write([]byte(t))
	return (uint64(h.Sum32())+uint64(p))%uint64(r.Of) == uint64(r.Index)
}

// isRule reports whether s is a rule rather than a partition.
func (s *split) isRule() bool { return s.Rule != nil }

// encode returns the element that Position hands out for s.
func (s *split) encode() ([]byte, error) {
	s.V = stateVersion
	return json.Marshal(s)
}

// decodeSplit reverses split.encode, checking that the element makes sense.
func decodeSplit(p []byte) (*split, error) {
	var s split
	if err := json.Unmarshal(p, &s); err != nil {
		return nil, fmt.Errorf("kafka source: %w: %v", connector.ErrBadPosition, err)
	}
	bad := func(format string, args ...any) (*split, error) {
		return nil, fmt.Errorf("kafka source: %w: "+format, append([]any{connector.ErrBadPosition}, args...)...)
	}
	switch {
	case s.V != stateVersion:
		return bad("version %d, want %d", s.V, stateVersion)
	case s.Rule != nil:
		r := s.Rule
		if r.Of < 1 || r.Index < 0 || r.Index >= r.Of || s.Topic != "" {
			return bad("rule %d of %d", r.Index, r.Of)
		}
		for t, n := range r.Seen {
			if n < 0 || t == "" {
				return bad("rule %d of %d has seen %d partitions of %q", r.Index, r.Of, n, t)
			}
		}
		if r.Seen == nil {
			r.Seen = map[string]int32{}
		}
	case s.Topic == "" || s.Partition < 0 || (s.Offset < 0 && s.Offset != offsetEarliest):
		return bad("partition %q/%d at offset %d", s.Topic, s.Partition, s.Offset)
	}
	return &s, nil
}
