// Package storetest is the conformance suite for checkpoint.Store
// implementations. Each implementation's tests call Run with a function
// that opens a fresh, empty store; the suite checks the contract written
// on checkpoint.Store: round trips of small and multi-part objects,
// overwrites, listing order and prefix boundaries, missing objects, invalid
// paths, and that failed or unfinished Puts are never visible.
package storetest
