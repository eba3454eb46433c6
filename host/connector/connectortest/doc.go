// Package connectortest holds helpers for testing connectors: a fake Clock
// whose time passes only when someone sleeps on it, a function that drains a
// bounded source, and a check that a test leaves no goroutines behind.
package connectortest
