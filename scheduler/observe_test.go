package scheduler

import (
	"errors"
	"fmt"
	"testing"

	floev1 "github.com/floe-stream/floe/proto/floe/v1"
)

// answer is a task manager's answer of lines with the given seqs.
func answer(tm string, more bool, seqs ...int64) logAnswer {
	resp := &floev1.FetchLogsResponse{More: more}
	for _, s := range seqs {
		resp.Lines = append(resp.Lines, &floev1.LogLine{Seq: s, Task: &floev1.TaskID{Stage: 1, Subtask: 2, Attempt: 3}, Message: fmt.Sprint(s)})
	}
	return logAnswer{tm: tm, resp: resp}
}

// TestMergeLogs checks that merged answers are ordered by seq, cut to the
// limit, and never skip a line of a task manager that left some out: next
// stops before any line that would pass one of them.
func TestMergeLogs(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answers []logAnswer
		limit   int
		want    string // seq@tm, in order
		next    int64
		more    bool
		unreach string
	}{
		{"none", nil, 10, "[]", 5, false, "[]"},
		{"one", []logAnswer{answer("tm-1", false, 6, 7)}, 10, "[6@tm-1 7@tm-1]", 7, false, "[]"},
		{"interleaved", []logAnswer{answer("tm-1", false, 6, 9), answer("tm-2", false, 7, 8)}, 10,
			"[6@tm-1 7@tm-2 8@tm-2 9@tm-1]", 9, false, "[]"},
		{"over the limit", []logAnswer{answer("tm-1", false, 6, 9), answer("tm-2", false, 7, 8)}, 3,
			"[6@tm-1 7@tm-2 8@tm-2]", 8, true, "[]"},
		{"one left lines out", []logAnswer{answer("tm-1", true, 6, 7), answer("tm-2", false, 8, 9)}, 10,
			"[6@tm-1 7@tm-1]", 7, true, "[]"},
		{"both left lines out", []logAnswer{answer("tm-1", true, 6, 10), answer("tm-2", true, 7, 8)}, 10,
			"[6@tm-1 7@tm-2 8@tm-2]", 8, true, "[]"},
		{"an unreachable one", []logAnswer{{tm: "tm-3", err: errors.New("down")}, answer("tm-1", false, 6)}, 10,
			"[6@tm-1]", 6, false, "[tm-3]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := mergeLogs(tc.answers, []string{"a", "b"}, 5, tc.limit)
			var lines []string
			for _, l := range got.Lines {
				lines = append(lines, fmt.Sprintf("%d@%s", l.Seq, l.TaskManager))
				if l.Vertex != "b" || l.Stage != 1 || l.Subtask != 2 || l.Attempt != 3 {
					t.Errorf("line %+v: want vertex b, stage 1, subtask 2, attempt 3", l)
				}
			}
			if fmt.Sprint(lines) != tc.want && !(tc.want == "[]" && lines == nil) || got.Next != tc.next || got.More != tc.more ||
				fmt.Sprint(got.Unreachable) != tc.unreach {
				t.Errorf("got %v next %d more %t unreachable %v; want %s, %d, %t, %s", lines, got.Next, got.More, got.Unreachable,
					tc.want, tc.next, tc.more, tc.unreach)
			}
		})
	}
}
