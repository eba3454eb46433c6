package taskmanager

import (
	"errors"
	"fmt"

	"github.com/floe-stream/floe/internal/jobspec"
)

// checkPaths fails a task whose job names a local path outside the task
// manager's allowed paths (Config.AllowedPaths): its connectors' files and
// directories, its spec's checkpoint storage and the checkpoint storage
// the deployment names. The scheduler has checked the job against its own
// roots already; this check is the task manager's, against its own, before
// it opens anything. The restore's store is checked where it is opened
// (checkpointing).
func (tm *TaskManager) checkPaths(job *jobspec.Job, checkpointStorage string) error {
	if !tm.roots.Restricted() {
		return nil
	}
	errs := []error{tm.roots.CheckJob(job)}
	if checkpointStorage != "" {
		_, err := tm.roots.CheckStore("checkpoint storage", checkpointStorage)
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("refusing the task: %w", err)
	}
	return nil
}
