package scheduler

import (
	"errors"
	"testing"

	"github.com/floe-stream/floe/internal/ckmeta"
	"github.com/floe-stream/floe/scheduler/api"
)

// TestRestoreRoot checks where a restored checkpoint's files are found: a
// savepoint's under itself, a retained checkpoint's under its job's
// checkpoint storage.
func TestRestoreRoot(t *testing.T) {
	tests := []struct {
		name, url string
		md        ckmeta.Metadata
		want      string // "" for a 400
	}{
		{"savepoint", "s3://b/sp/savepoint-abc-3", ckmeta.Metadata{JobID: "abc", ID: 3, Savepoint: true}, "s3://b/sp/savepoint-abc-3"},
		{"retained checkpoint", "file:///ck/abc/chk-7", ckmeta.Metadata{JobID: "abc", ID: 7}, "file:///ck"},
		{"checkpoint moved", "file:///elsewhere/chk-7", ckmeta.Metadata{JobID: "abc", ID: 7}, ""},
		{"checkpoint of another id", "file:///ck/abc/chk-8", ckmeta.Metadata{JobID: "abc", ID: 7}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := restoreRoot(tt.url, &tt.md)
			if tt.want == "" {
				if !errors.Is(err, api.ErrBadRequest) {
					t.Errorf("got %q, %v; want a bad request", got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
