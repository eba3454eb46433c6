package taskmanager

import (
	"runtime"
	"syscall"
)

// backgroundThread moves the calling goroutine onto an OS thread of its
// own and adds nice to that thread's nice value. The thread ends with the
// goroutine: an unprivileged thread cannot take its priority back.
func backgroundThread(nice int) error {
	runtime.LockOSThread()
	cur, err := syscall.Getpriority(syscall.PRIO_PROCESS, syscall.Gettid())
	if err != nil {
		return err
	}
	// NB: the raw getpriority syscall returns 20 - nice.
	return syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), min(20-cur+nice, 19))
}
