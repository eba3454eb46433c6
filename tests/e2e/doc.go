// Package e2e holds end-to-end tests that run the real floe binary, built
// from source by the tests, on jobs whose operators are compiled from SDK
// sources, and check what comes out against answers the tests compute
// themselves.
package e2e
