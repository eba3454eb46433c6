package replog

import (
	"encoding/json"
	"fmt"
	"net"
	"slices"
	"sync"
	"testing"
	"time"
)

// testFSM appends every command to a slice; its snapshot is the slice in
// JSON.
type testFSM struct {
	mu       sync.Mutex
	cmds     []string
	indices  []uint64 // the log index of each Apply since the last Restore
	restores int
}

// Apply returns the number of commands applied so far.
func (f *testFSM) Apply(index uint64, cmd []byte) any {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cmds = append(f.cmds, string(cmd))
	f.indices = append(f.indices, index)
	return len(f.cmds)
}

func (f *testFSM) Snapshot() ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return json.Marshal(f.cmds)
}

func (f *testFSM) Restore(b []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.restores++
	f.indices = nil
	return json.Unmarshal(b, &f.cmds)
}

func (f *testFSM) commands() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.cmds)
}

// commandList returns "c1", ..., "cn" from first.
func commandList(first, n int) []string {
	var cs []string
	for i := first; i < first+n; i++ {
		cs = append(cs, fmt.Sprintf("c%d", i))
	}
	return cs
}

// eventually polls cond until it holds, and fails the test when it has not
// after a generous time.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// freeAddrs returns n loopback addresses whose ports were free a moment ago.
func freeAddrs(t *testing.T, n int) []string {
	t.Helper()
	var addrs []string
	var ls []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		addrs = append(addrs, l.Addr().String())
	}
	for _, l := range ls {
		l.Close()
	}
	return addrs
}
