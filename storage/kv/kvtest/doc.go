// Package kvtest is the conformance suite for kv.Store implementations.
// Each implementation's tests call RunSuite with a function that opens a
// fresh, empty store; the suite checks the kv.Store contract, including a
// randomized comparison against a plain Go map.
package kvtest
