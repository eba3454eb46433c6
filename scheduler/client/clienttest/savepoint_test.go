package clienttest

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/floe-stream/floe/scheduler/api"
)

// TestSavepointIDs checks the savepoints the Fake synthesizes and scripts:
// each one's ID follows the newest checkpoint or savepoint, and a trigger
// stays IN_PROGRESS until it is polled.
func TestSavepointIDs(t *testing.T) {
	f := submitted(t)
	f.AddCheckpoint("job-1", api.CheckpointStatus{ID: 4, Status: api.CheckpointCompleted})
	f.ScriptSavepoints("job-1", api.SavepointTrigger{ID: 9, Path: "s3://b/scripted"})
	take := func(stop bool, dir string) savepointOutcome {
		t.Helper()
		trigger := f.Savepoint
		if stop {
			trigger = f.Stop
		}
		tr, err := trigger(t.Context(), "job-1", dir)
		if err != nil || tr.Status != api.SavepointInProgress || tr.Stop != stop {
			t.Fatalf("trigger %+v, %v", tr, err)
		}
		if job, _ := f.Job(t.Context(), "job-1"); job.State != api.JobRunning {
			t.Fatalf("job %s before its savepoint completed", job.State)
		}
		done, err := f.SavepointStatus(t.Context(), "job-1", tr.Trigger)
		if err != nil {
			t.Fatal(err)
		}
		return savepointOutcome{done.Trigger, done.Status, done.ID, done.Path}
	}
	var got []savepointOutcome
	for _, dir := range []string{"", "s3://b/sp/", "file:///sp"} {
		got = append(got, take(false, dir))
	}
	f.AddCheckpoint("job-1", api.CheckpointStatus{ID: 20, Status: api.CheckpointInProgress})
	got = append(got, take(true, ""))
	want := []savepointOutcome{{"trigger-1", api.SavepointCompleted, 9, "s3://b/scripted"},
		{"trigger-2", api.SavepointCompleted, 10, "s3://b/sp/savepoint-job-1-10"},
		{"trigger-3", api.SavepointCompleted, 11, "file:///sp/savepoint-job-1-11"},
		{"trigger-4", api.SavepointCompleted, 21, DefaultSavepointDir + "/savepoint-job-1-21"}}
	if !slices.Equal(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	job, _ := f.Job(t.Context(), "job-1")
	if job.State != api.JobFinished || job.Message != "stopped with savepoint "+want[3].path || job.EndedAt == nil {
		t.Errorf("after Stop: %+v", job)
	}
	calls := f.Savepoints()
	if len(calls) != 4 || calls[1] != (SavepointCall{Job: "job-1", Dir: "s3://b/sp/"}) || !calls[3].Stop {
		t.Errorf("calls %+v", calls)
	}
	if _, err := f.SavepointStatus(t.Context(), "job-1", "nope"); !errors.Is(err, api.ErrNotFound) {
		t.Errorf("unknown trigger: %v", err)
	}
}

// savepointOutcome is what TestSavepointIDs compares of a trigger.
type savepointOutcome struct {
	trigger, status string
	id              int64
	path            string
}

// TestSavepointRefused checks what the Fake refuses as the scheduler does,
// and that FailSavepoints comes first.
func TestSavepointRefused(t *testing.T) {
	f := submitted(t)
	plain := strings.Replace(spec, "checkpoints: {interval: 10s}\n", "", 1)
	if _, err := f.Submit(t.Context(), api.Submission{Spec: []byte(plain), Modules: map[string][]byte{"ops": nil}}); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	f.FailSavepoints("job-1", boom, nil)
	tests := []struct {
		id, dir string
		is      error
		want    string
	}{
		{"job-1", "", boom, "boom"},
		{"job-1", "s3://", api.ErrBadRequest, `bad request: savepoint dir "s3://": want a file:// or s3:// URL`},
		{"job-1", "sp", api.ErrBadRequest, `bad request: savepoint dir "sp": want a file:// or s3:// URL`},
		{"job-2", "", api.ErrConflict, "conflict: job job-2 takes no checkpoints; submit it with --checkpoint-interval to take savepoints"},
		{"nope", "", api.ErrNotFound, `not found: no job "nope"`},
	}
	for _, tt := range tests {
		if _, err := f.Stop(t.Context(), tt.id, tt.dir); !errors.Is(err, tt.is) || err.Error() != tt.want {
			t.Errorf("Stop(%s, %q) = %v, want %q", tt.id, tt.dir, err, tt.want)
		}
	}
	if job, _ := f.Job(t.Context(), "job-1"); job.State != api.JobRunning {
		t.Errorf("refused stops left the job %s", job.State)
	}
	if err := f.Rescale(t.Context(), "job-1", api.RescaleRequest{Parallelism: 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Savepoint(t.Context(), "job-1", ""); !errors.Is(err, api.ErrConflict) || !strings.Contains(err.Error(), "being rescaled") {
		t.Errorf("during a rescale: %v", err)
	}
	f.SetState("job-1", api.JobFailed, "")
	if _, err := f.Savepoint(t.Context(), "job-1", ""); !errors.Is(err, api.ErrConflict) ||
		err.Error() != "conflict: job job-1 is FAILED; savepoints are taken of running jobs" {
		t.Errorf("a failed job: %v", err)
	}
	if n := len(f.Savepoints()); n != 6 {
		t.Errorf("%d calls recorded, want 6 (not the unknown job's)", n)
	}
}

// TestSubmitFromSavepoint checks a submission from a savepoint against the
// job it came from, as the scheduler would.
func TestSubmitFromSavepoint(t *testing.T) {
	f := submitted(t)
	tr, err := f.Savepoint(t.Context(), "job-1", "file:///sp")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := f.SavepointStatus(t.Context(), "job-1", tr.Trigger)
	if err != nil {
		t.Fatal(err)
	}
	renamed := strings.Replace(spec, "uid: upper", "uid: upper2", 1)
	tests := []struct {
		name, spec, from string
		allow            bool
		want             string // the error, if any
	}{
		{"same job", spec, sp.Path, false, ""},
		{"same job, path with a slash", spec, sp.Path + "/", false, ""},
		{"at another parallelism", strings.Replace(spec, "parallelism: 2", "parallelism: 5", 1), sp.Path, false, ""},
		{"a uid less", renamed, sp.Path, false,
			`bad request: savepoint file:///sp/savepoint-job-1-1 has state for "upper", which the job lacks (pass --allow-non-restored-state to drop it)`},
		{"a uid less, allowed", renamed, sp.Path, true, ""},
		{"another maxParallelism", "maxParallelism: 64\n" + spec, sp.Path, true,
			"bad request: savepoint file:///sp/savepoint-job-1-1 has maxParallelism 128, the job 64: it is fixed for the life of the state"},
		{"a savepoint the Fake did not take", renamed, "s3://elsewhere/savepoint-x-1", false, ""},
		{"not a URL", spec, "/sp/savepoint-job-1-1", false, `bad request: fromSavepoint "/sp/savepoint-job-1-1": want a file:// or s3:// URL`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.Submit(t.Context(), api.Submission{Spec: []byte(tt.spec), Modules: map[string][]byte{"ops": nil},
				FromSavepoint: tt.from, AllowNonRestoredState: tt.allow})
			if tt.want == "" && err != nil || tt.want != "" && (!errors.Is(err, api.ErrBadRequest) || err.Error() != tt.want) {
				t.Errorf("got %v, want %q", err, tt.want)
			}
		})
	}
}
