// Package localfs keeps checkpoint objects as files under a root directory,
// one file per object, with the object's path as the file's path below the
// root.
//
// A Put writes a temporary file in the object's directory (named with
// object.TempPrefix, which no object path may use), fsyncs it, renames it
// over the object and fsyncs the directory, so a reader sees either the old
// object or the whole new one, and an object whose Put returned survives a
// crash. List never reports temporary files. Delete removes directories
// that it leaves empty, up to the root.
//
// Paths map to files directly, so one path cannot be both an object and the
// directory of another ("a" and "a/b"): the second Put fails.
package localfs
