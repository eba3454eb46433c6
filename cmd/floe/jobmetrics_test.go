package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
)

func TestPrintJobMetrics(t *testing.T) {
	lag := int64(1500)
	wm := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	sub0 := api.TaskFigures{RecordsIn: 600, RecordsOut: 3000, RecordsInPerSecond: 100, RecordsOutPerSecond: 500,
		Busy: 0.25, BackPressured: 0.7, Idle: 0.05, Progress: &api.SourceProgress{BytesRead: 512, BytesTotal: 2048}}
	sub1 := api.TaskFigures{RecordsIn: 400, RecordsOut: 2000, RecordsInPerSecond: 1500, RecordsOutPerSecond: 7500,
		Busy: 0.75, BackPressured: 0.2, Idle: 0.05, Progress: &api.SourceProgress{BytesRead: 1024, BytesTotal: 2048}}
	m := api.JobMetrics{
		ID: "job-1", Name: "wordcount", State: api.JobRunning,
		Vertices: []api.VertexMetrics{
			{Stage: 0, Name: "lines -> split", Parallelism: 2,
				TaskFigures: api.TaskFigures{RecordsIn: 1000, RecordsOut: 5000, RecordsInPerSecond: 1600, RecordsOutPerSecond: 8000,
					Busy: 0.5, BackPressured: 0.45, Idle: 0.05, Progress: &api.SourceProgress{BytesRead: 1536, BytesTotal: 4096}},
				Subtasks: []api.SubtaskMetrics{{Subtask: 0, State: api.TaskRunning, TaskManager: "tm-1", TaskFigures: sub0},
					{Subtask: 1, State: api.TaskRunning, TaskManager: "tm-2", TaskFigures: sub1}}},
			{Stage: 1, Name: "count -> out", Parallelism: 1,
				TaskFigures: api.TaskFigures{RecordsIn: 5000, RecordsOut: 5000, Busy: 1, InputWatermark: &wm, EventTimeLagMillis: &lag},
				Subtasks:    []api.SubtaskMetrics{{Subtask: 0, State: api.TaskScheduled}}},
		},
		Checkpoints: &api.CheckpointSummary{Completed: 12, Failed: 1, Last: &api.CheckpointStatus{ID: 13, DurationMillis: 85,
			FullBytes: 3 << 20, IncrementalBytes: 512}},
	}
	var out bytes.Buffer
	if err := printJobMetrics(&out, m); err != nil {
		t.Fatal(err)
	}
	want := `Job wordcount (job-1): RUNNING

VERTEX            PARALLELISM  TASK MANAGER  RECORDS IN  RECORDS OUT  IN/S  OUT/S  BUSY  BACK-PRESSURED  IDLE  LAG   READ
0 lines -> split  2                          1000        5000         1.6k  8.0k   50%   45%             5%    -     37.5% of 4.0 KiB
  subtask 0                    tm-1          600         3000         100   500    25%   70%             5%    -     25.0% of 2.0 KiB
  subtask 1                    tm-2          400         2000         1.5k  7.5k   75%   20%             5%    -     50.0% of 2.0 KiB
1 count -> out    1                          5000        5000         0     0      100%  0%              0%    1.5s  -
  subtask 0                    -             0           0            0     0      0%    0%              0%    -     -

Checkpoints: 12 completed, 1 failed; last 13 took 85ms, 3.0 MiB (512 B incremental)
`
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}
