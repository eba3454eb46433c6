// Package client talks to a Floe scheduler over its REST API (docs/rest.md).
//
// A Client implements api.Service, so code written against the interface
// runs the same against a scheduler in the same process or one across the
// network. Errors that the scheduler reports come back as *Error values that
// wrap the matching api sentinel, so errors.Is(err, api.ErrNotFound) works
// on either side of the wire.
//
// Beyond the Service methods, SubmitFiles uploads a job from its spec file
// and the module files the spec names, as `floe job submit` does, Wait
// polls a job until it ends, and GetInt64 reads one key of a queryable
// int64 state, such as a counter (docs/queryable-state.md). Cluster reads
// the scheduler group's members and leader. WithToken returns a client that
// sends a bearer token, for a scheduler that checks them (docs/security.md).
//
// A client may be given the REST addresses of every scheduler of a group,
// comma-separated: it talks to one and moves to the next when that one
// cannot be reached or answers 503 (New says exactly when), so it follows
// the group through the loss of a scheduler.
package client
