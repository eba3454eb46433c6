//go:build !linux

package taskmanager

// backgroundThread lowers the priority of task threads only on Linux,
// where each thread has a nice value of its own.
func backgroundThread(nice int) error { return nil }
