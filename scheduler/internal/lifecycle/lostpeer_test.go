package lifecycle

import "testing"

func TestPeerNamed(t *testing.T) {
	attempt := []string{"tm-1", "tm-2", "tm-10"}
	tests := []struct {
		name, msg, reporter, want string
	}{
		{"sending end", "channel from sender 1 to job j attempt 1 stage 1 subtask 0 on task manager tm-1 at h:1: rpc error", "tm-2", "tm-1"},
		{"receiving end", "transport: channel broke before its end: channel from sender 0 (task manager tm-10 at h:1) to job j", "tm-2", "tm-10"},
		{"id only", "channel from sender 0 (task manager tm-1) to job j", "tm-2", "tm-1"},
		{"address only", "channel from sender 0 (task manager at h:1) to job j", "tm-2", ""},
		{"the reporter itself", "channel from sender 0 on task manager tm-2 at h:1: closed", "tm-2", ""},
		{"not of the attempt", "channel from sender 0 on task manager tm-3 at h:1: closed", "tm-2", ""},
		{"a prefix of an id", "channel from sender 0 on task manager tm-100 at h:1: closed", "tm-2", ""},
		{"no channel", "module \"m\" function \"f\": task manager tm-1 said no", "tm-2", ""},
		{"the second named", "channel from sender 0 on task manager tm-2 at h:1: task manager tm-1 at h:2 gone", "tm-2", "tm-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := peerNamed(tt.msg, tt.reporter, attempt); got != tt.want {
				t.Errorf("peerNamed(%q, %s) = %q, want %q", tt.msg, tt.reporter, got, tt.want)
			}
		})
	}
}
