package udf

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sync"
)

// firstCompiles tells the engine's OnFirstCompile when a module's code is
// compiled for the first time into its cache directory: the slow compile
// that later runs skip. wazero keeps the compiled code and does not say
// whether it found it, so the engine keeps a marker file per code digest
// beside wazero's cache.
type firstCompiles struct {
	dir    string // where the markers go; "" when there is no cache dir
	notify func(module string)
	mu     sync.Mutex
	seen   map[[sha256.Size]byte]bool
}

func newFirstCompiles(cacheDir string, notify func(module string)) *firstCompiles {
	f := &firstCompiles{notify: notify, seen: map[[sha256.Size]byte]bool{}}
	if cacheDir != "" && notify != nil {
		f.dir = filepath.Join(cacheDir, "floe-compiled")
	}
	return f
}

// before is called before code, of module name, is compiled. It calls
// notify if neither this engine nor an earlier one with the same cache
// directory has compiled code before, and returns what to call once the
// compile has succeeded.
func (f *firstCompiles) before(name string, code []byte) (compiled func()) {
	if f.dir == "" {
		return func() {}
	}
	sum := sha256.Sum256(code)
	marker := filepath.Join(f.dir, hex.EncodeToString(sum[:]))
	f.mu.Lock()
	seen := f.seen[sum]
	f.seen[sum] = true
	f.mu.Unlock()
	if seen {
		return func() {}
	}
	if _, err := os.Stat(marker); err == nil {
		return func() {}
	}
	f.notify(name)
	return func() {
		// NB: a marker that cannot be written costs only a repeated note.
		if os.MkdirAll(f.dir, 0o755) == nil {
			os.WriteFile(marker, nil, 0o644)
		}
	}
}
