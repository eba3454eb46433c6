// Package clienttest helps test code that talks to a scheduler: Fake is an
// in-memory api.Service with knobs for tests, and NewServer serves any
// api.Service over HTTP through the scheduler's real REST handler, so a test
// exercises the same requests and responses as a deployment.
//
// Like net/http/httptest, it is meant for tests only.
package clienttest
