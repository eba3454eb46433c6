package taskmanager

import (
	"runtime/debug"

	"github.com/floe-stream/floe/storage/kv/pebblekv"
)

// stateMemory returns the memory budget of one subtask's state store:
// Config.StateMemory, or a share of the process's memory limit (which
// TuneRuntime sets to three quarters of the machine's) per slot: see
// pebblekv.Budget.
func (tm *TaskManager) stateMemory() int64 {
	if tm.cfg.StateMemory > 0 {
		return tm.cfg.StateMemory
	}
	return pebblekv.Budget(debug.SetMemoryLimit(-1), tm.cfg.Slots)
}
