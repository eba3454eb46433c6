//go:build unix

package confine

import "syscall"

// errNotDir is what Lstat returns below a file that is not a directory:
// nothing exists there, as for a missing component.
var errNotDir error = syscall.ENOTDIR
