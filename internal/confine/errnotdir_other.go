//go:build !unix

package confine

import "errors"

// errNotDir matches nothing where the system has no ENOTDIR.
var errNotDir = errors.New("confine: not a directory")
