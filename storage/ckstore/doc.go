// Package ckstore defines Store, where checkpoint files live, and Open,
// which turns a URL into one.
//
// A checkpoint writes its files (pebble SSTs, source positions) with Put and
// then, last, a metadata file naming them: the checkpoint exists once its
// metadata does. Put is atomic, so a reader that finds an object finds all
// of it, and a Put that fails leaves nothing behind.
//
// Two kinds of store exist:
//
//   - file:///abs/dir, or a bare path: package localfs, files under a
//     directory.
//   - s3://bucket/prefix: package s3store, objects in an S3-compatible
//     bucket, reached with the settings in Options.
//
// Both pass the conformance suite in package storetest, and package faulty
// wraps any Store to fail on command in tests.
//
// # Paths
//
// Object paths are slash-separated and relative to the store's root, like
// "chk-12/op-3/000042.sst": no empty, "." or ".." elements, no backslashes
// or control characters, and no element starting with ".floe-tmp." (which
// local temporary files use). A path should not also be a directory of other
// paths ("a" and "a/b"): the local store cannot hold both.
package ckstore
