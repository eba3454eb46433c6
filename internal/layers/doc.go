// Package layers holds no code, only a test: layers_test.go reads Floe's
// import graph with `go list` and fails when an import crosses one of the
// boundaries that RATIONALE.md ("How the packages are layered, and why")
// describes.
//
// The test checks three kinds of rule, each a table in layers_test.go:
//
//   - Layers. Every package of the module belongs to exactly one layer
//     (storage, the shared types of internal/ and proto/, the Wasm boundary
//     and record batches, the task manager's runtime, the task manager, the
//     scheduler, the mini-cluster, the floe command, the guest SDKs and
//     modules, and the tests). A layer names the layers it may import; an
//     import from any other layer, in a package or in its tests, is a
//     violation. A new top-level directory fails the test until it is given
//     a layer.
//   - Edge libraries. grpc, minio-go, franz-go and hashicorp/raft may be
//     imported only by the few packages that talk to the network or an
//     external system, so that the cores build on the standard library,
//     wazero and pebble alone.
//   - Single edges that the layers cannot express, such as the task runtime
//     importing a connector package.
//
// Every violation names the importing package, the imported one and the rule
// it breaks. `make check` runs the test.
package layers
