package taskmanager

import (
	"syscall"
	"testing"
)

func TestBackgroundThreadLowersOnlyItsOwnThread(t *testing.T) {
	prio := func() int {
		p, err := syscall.Getpriority(syscall.PRIO_PROCESS, syscall.Gettid())
		if err != nil {
			t.Fatal(err)
		}
		return 20 - p // the raw syscall answers 20 - nice
	}
	base := prio()
	got := make(chan int)
	go func() {
		if err := backgroundThread(5); err != nil {
			t.Error(err)
		}
		got <- prio()
	}()
	if n := <-got; n != min(base+5, 19) {
		t.Errorf("task thread nice %d, want %d", n, min(base+5, 19))
	}
	if n := prio(); n != base {
		t.Errorf("the test's thread went from nice %d to %d", base, n)
	}
}
