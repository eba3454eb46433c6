package rest

// FormatSize exports formatSize to the tests.
var FormatSize = formatSize

// Serving exports serving to the tests, as the pattern ServeMux serves, the
// wildcard guard checks, the custom method and the number of segments.
func Serving(p string, all []string) (pattern, wildcard, verb string, segments int) {
	m := serving(p, all)
	return m.pattern, m.wildcard, m.verb, m.segments
}

// The bodies of the savepoint endpoints, for the OpenAPI schema test.
type (
	SavepointRequest = savepointRequest
	StopRequest      = stopRequest
)
