package jobspec

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
)

// CheckModules reports every declared module whose Wasm file is missing or
// is not a regular file; a module named by digest has no file here and
// passes. Parse leaves this out so that a scheduler can accept
// a spec before its modules are uploaded; call CheckModules once they should
// be on disk. A missing file's error matches fs.ErrNotExist.
func (j *Job) CheckModules() error {
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(j.Modules)) {
		if _, ok := j.ModuleRefs[name]; ok {
			continue
		}
		if err := checkModule(j.Modules[name]); err != nil {
			errs = append(errs, fmt.Errorf("module %q: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// checkModule reports whether path is a regular file.
func checkModule(path string) error {
	info, err := os.Stat(path)
	switch {
	case err != nil:
		return err
	case !info.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file", path)
	}
	return nil
}
