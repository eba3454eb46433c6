package kafka

import (
	"context"

	"github.com/twmb/franz-go/pkg/kadm"
)

// CheckpointComplete tells the source that checkpoint id completed: it
// commits the offsets it recorded for it (in PositionFor) to its group, in
// the background. Commits are for monitoring only, such as consumer lag; a
// failed one is logged and the next completion commits newer offsets.
func (s *source) CheckpointComplete(id int64) error {
	var latest *pendingCommit
	i := 0
	for ; i < len(s.pending) && s.pending[i].id <= id; i++ {
		latest = &s.pending[i]
	}
	if latest == nil || s.commits == nil {
		s.pending = s.pending[i:]
		return nil
	}
	offs := latest.offsets
	s.pending = s.pending[i:]
	// NB: the task's goroutine is the only sender, so after taking a
	// commit the committer has not started yet, the send cannot block.
	select {
	case <-s.commits:
	default:
	}
	s.commits <- offs
	return nil
}

// commitLoop commits the offsets it receives until the source closes.
func (s *source) commitLoop() {
	for {
		select {
		case <-s.ctx.Done():
			return
		case offs := <-s.commits:
			ctx, cancel := context.WithTimeout(s.ctx, orDefault(s.cfg.RequestTimeout, DefaultRequestTimeout))
			err := s.commit(ctx, offs)
			cancel()
			if err != nil && s.ctx.Err() == nil {
				s.log.Warn("kafka source: committing offsets", "group", s.cfg.Group, "err", err)
			}
		}
	}
}

func (s *source) commit(ctx context.Context, offs kadm.Offsets) error {
	resp, err := s.adm.CommitOffsets(ctx, s.cfg.Group, offs)
	if err != nil {
		return err
	}
	return resp.Error()
}
