package scheduler

import (
	"reflect"
	"testing"
	"time"

	"github.com/floe-stream/floe/scheduler/api"
)

func TestVertexFigures(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 10, 0, time.UTC)
	at := func(s int) *time.Time { t := now.Add(time.Duration(s) * time.Second); return &t }
	ms := func(n int64) *int64 { return &n }
	n := func(n int) *int { return &n }
	tests := []struct {
		name string
		subs []api.TaskFigures
		want api.TaskFigures
	}{
		{"no subtasks yet", nil, api.TaskFigures{}},
		{
			"sums, means and the least watermark",
			[]api.TaskFigures{
				{RecordsIn: 10, RecordsOut: 20, RecordsInPerSecond: 1, RecordsOutPerSecond: 2, Busy: 0.25, BackPressured: 0.75,
					InputWatermark: at(-4), OutputWatermark: at(-5), Progress: &api.SourceProgress{BytesRead: 100, BytesTotal: 400}},
				{RecordsIn: 30, RecordsOut: 40, RecordsInPerSecond: 3, RecordsOutPerSecond: 4, Busy: 0.75, Idle: 0.25,
					InputWatermark: at(-2), OutputWatermark: at(-3), Progress: &api.SourceProgress{BytesRead: 300, BytesTotal: 400}},
			},
			api.TaskFigures{RecordsIn: 40, RecordsOut: 60, RecordsInPerSecond: 4, RecordsOutPerSecond: 6, Busy: 0.5, BackPressured: 0.375, Idle: 0.125,
				InputWatermark: at(-4), OutputWatermark: at(-5), EventTimeLagMillis: ms(4000), Progress: &api.SourceProgress{BytesRead: 400, BytesTotal: 800}},
		},
		{
			// A subtask that has not reported yet neither counts in the
			// shares nor lets the stage have a watermark.
			"a subtask without a report",
			[]api.TaskFigures{{RecordsIn: 5, Busy: 1, InputWatermark: at(-1)}, {}},
			api.TaskFigures{RecordsIn: 5, Busy: 1},
		},
		{
			// Operators stay in the order first seen; one a subtask does
			// not report (it has no keyed state there yet) is still summed.
			"state sizes per operator",
			[]api.TaskFigures{
				{OperatorStates: []api.OperatorState{{Operator: "count", Keys: 3, Bytes: 30}, {Operator: "top", Keys: 1, Bytes: 5}}},
				{OperatorStates: []api.OperatorState{{Operator: "count", Keys: 4, Bytes: 41}}},
				{OperatorStates: []api.OperatorState{{Operator: "top", Keys: 2, Bytes: 7}, {Operator: "count", Keys: 0, Bytes: 0}}},
			},
			api.TaskFigures{OperatorStates: []api.OperatorState{{Operator: "count", Keys: 7, Bytes: 71}, {Operator: "top", Keys: 3, Bytes: 12}}},
		},
		{
			// A Kafka source's lags and partitions add up; its snapshot
			// share is a mean, as the other shares are.
			"backlogs and splits",
			[]api.TaskFigures{
				{Busy: 0.5, Idle: 0.3, Checkpointing: 0.2, Backlog: ms(700), Splits: n(2)},
				{Busy: 0.5, Idle: 0.5, Backlog: ms(300), Splits: n(1)},
			},
			api.TaskFigures{Busy: 0.5, Idle: 0.4, Checkpointing: 0.1, Backlog: ms(1000), Splits: n(3)},
		},
	}
	for _, tt := range tests {
		if got := vertexFigures(tt.subs, now); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.name, got, tt.want)
		}
	}
}
