package replog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// dirLock is an exclusive flock(2) on a directory's LOCK file. NB: flock
// locks belong to an open file, so a second Open in the same process
// conflicts as one in another process does; the kernel releases the lock
// when the process dies, so a crash leaves no stale lock behind.
type dirLock struct{ f *os.File }

func lockDir(dir string) (*dirLock, error) {
	path := filepath.Join(dir, "LOCK")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("replog: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: %s is locked; is another scheduler running with this data directory?", ErrDirInUse, dir)
		}
		return nil, fmt.Errorf("replog: locking %s: %w", path, err)
	}
	return &dirLock{f: f}, nil
}

// release unlocks the directory by closing the file.
func (d *dirLock) release() error {
	return d.f.Close()
}
