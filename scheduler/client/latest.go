package client

import (
	"context"
	"fmt"
	"strings"

	"github.com/floe-stream/floe/scheduler/api"
)

// LatestCheckpoint returns the directory of a job's latest completed
// checkpoint, which the job retains: pass it as a submission's
// FromSavepoint to resume from it. The error wraps api.ErrNotFound for an
// unknown job or one with no completed checkpoint.
func (c *Client) LatestCheckpoint(ctx context.Context, id string) (string, error) {
	ckpts, err := c.Checkpoints(ctx, id)
	if err != nil {
		return "", err
	}
	return LatestCheckpointDir(id, ckpts)
}

// LatestCheckpointDir returns the directory of the newest COMPLETED
// checkpoint among ckpts (a job's, as Checkpoints lists them): its
// metadata's path without the trailing /_metadata.
func LatestCheckpointDir(id string, ckpts []api.CheckpointStatus) (string, error) {
	var best *api.CheckpointStatus
	for i := range ckpts {
		c := &ckpts[i]
		if c.Status == api.CheckpointCompleted && c.Path != "" && (best == nil || c.ID > best.ID) {
			best = c
		}
	}
	if best == nil {
		return "", fmt.Errorf("%w: job %s has no completed checkpoint", api.ErrNotFound, id)
	}
	return strings.TrimSuffix(best.Path, "/_metadata"), nil
}
