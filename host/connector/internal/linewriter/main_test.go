package linewriter

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if any goroutine they started, such as
// a Writer's flushing goroutine, is still running once they are over.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
