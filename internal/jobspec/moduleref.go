package jobspec

import (
	"fmt"
	"strings"
)

// ModuleRef is a module that a spec names by its digest instead of by the
// path of its Wasm file: one pushed to the scheduler beforehand (floe module
// push, POST /v1/modules). Its value in the spec is "sha256:HEX" or
// "NAME@sha256:HEX", HEX the 64 lower-case hex digits of the module's
// SHA-256. The digest alone selects the module; NAME, when written, must be
// the name it was pushed with, so that a spec reads as what it runs.
type ModuleRef struct {
	// Name is the name written before "@", or empty.
	Name string
	// Digest is the module's hex SHA-256, without "sha256:".
	Digest string
}

// digestPrefix starts the digest of a ModuleRef.
const digestPrefix = "sha256:"

// String renders r as a spec writes it.
func (r ModuleRef) String() string {
	if r.Name == "" {
		return digestPrefix + r.Digest
	}
	return r.Name + "@" + digestPrefix + r.Digest
}

// ParseModuleRef reads a module reference. ok is false for text that is no
// reference at all, a path; err tells what is wrong with text that is one
// ("sha256:" or "@sha256:" in it) but malformed.
func ParseModuleRef(s string) (ref ModuleRef, ok bool, err error) {
	name, digest, found := strings.Cut(s, "@"+digestPrefix)
	switch {
	case found:
		if !isName(name) || len(name) > maxNameLen {
			return ModuleRef{}, true, fmt.Errorf("%q: the name before @ must match [A-Za-z0-9._-]+ and be at most %d characters", s, maxNameLen)
		}
	case strings.HasPrefix(s, digestPrefix):
		name, digest = "", strings.TrimPrefix(s, digestPrefix)
	default:
		return ModuleRef{}, false, nil
	}
	if !IsDigest(digest) {
		return ModuleRef{}, true, fmt.Errorf("%q: want sha256: and 64 lower-case hex digits, as floe module push prints", s)
	}
	return ModuleRef{Name: name, Digest: digest}, true, nil
}

// IsDigest reports whether s is a hex SHA-256: 64 lower-case hex digits.
func IsDigest(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range []byte(s) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
