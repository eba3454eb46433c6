package sqlexpr

import (
	"testing"

	"github.com/floe-stream/floe/internal/sqlrow"
)

// TestTimeFunctions works each function out by hand on 2000-02-29
// 13:04:05.678 UTC (a Tuesday, day 60 of the year, ISO week 9), which is
// 951_829_445_678 ms since the epoch.
func TestTimeFunctions(t *testing.T) {
	ts := sqlrow.TS(951_829_445_678)
	tests := []struct {
		fn   string
		args []sqlrow.Value
		want sqlrow.Value
	}{
		{"year", nil, sqlrow.Int(2000)},
		{"quarter", nil, sqlrow.Int(1)},
		{"month", nil, sqlrow.Int(2)},
		{"week", nil, sqlrow.Int(9)},
		{"dayofmonth", nil, sqlrow.Int(29)},
		{"dayofyear", nil, sqlrow.Int(60)},
		{"dow", nil, sqlrow.Int(2)},
		{"dayofweek", nil, sqlrow.Int(3)},
		{"hour", nil, sqlrow.Int(13)},
		{"minute", nil, sqlrow.Int(4)},
		{"second", nil, sqlrow.Int(5)},
		{"millisecond", nil, sqlrow.Int(5678)},
		{"date_format", []sqlrow.Value{sqlrow.Str("yyyy-MM-dd HH:mm:ss.SSS")}, sqlrow.Str("2000-02-29 13:04:05.678")},
		{"date_format", []sqlrow.Value{sqlrow.Str("yy/M/d H:m:s 'at' S''")}, sqlrow.Str("00/2/29 13:4:5 at 6'")},
		{"date_trunc", []sqlrow.Value{sqlrow.Str("hour")}, sqlrow.TS(951_829_200_000)},
		{"date_trunc", []sqlrow.Value{sqlrow.Str("month")}, sqlrow.TS(949_363_200_000)},
		{"date_trunc", []sqlrow.Value{sqlrow.Str("quarter")}, sqlrow.TS(946_684_800_000)},
	}
	for _, tt := range tests {
		args := append([]sqlrow.Value{ts}, tt.args...)
		if tt.fn == "date_trunc" {
			args = []sqlrow.Value{tt.args[0], ts}
		}
		lits := make([]*Expr, len(args))
		for i, a := range args {
			lits[i] = Lit(a)
		}
		e, err := New(OpCall, tt.fn, 0, lits...)
		if err != nil {
			t.Errorf("%s: %v", tt.fn, err)
			continue
		}
		if got, err := e.Eval(nil); err != nil || got != tt.want {
			t.Errorf("%s%v = %v, %v; want %v", tt.fn, args, got, err, tt.want)
		}
	}
}

func TestTimestampArithmetic(t *testing.T) {
	ts := Lit(sqlrow.TS(1000))
	tests := []struct {
		op   Op
		a, b *Expr
		want sqlrow.Value
	}{
		{OpAdd, ts, Lit(sqlrow.Int(60_000)), sqlrow.TS(61_000)},
		{OpAdd, Lit(sqlrow.Int(5)), ts, sqlrow.TS(1005)},
		{OpSub, ts, Lit(sqlrow.Int(1500)), sqlrow.TS(-500)},
		{OpSub, ts, Lit(sqlrow.TS(400)), sqlrow.Int(600)},
		{OpLt, Lit(sqlrow.TS(400)), ts, sqlrow.Bool(true)},
		{OpCast, ts, nil, sqlrow.Int(1000)},
	}
	for _, tt := range tests {
		var e *Expr
		var err error
		if tt.op == OpCast {
			e, err = New(OpCast, "", sqlrow.BigInt, tt.a)
		} else {
			e, err = New(tt.op, "", 0, tt.a, tt.b)
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.op, err)
		}
		if got, err := e.Eval(nil); err != nil || got != tt.want {
			t.Errorf("%s = %v, %v; want %v", tt.op, got, err, tt.want)
		}
	}
	for _, op := range []Op{OpMul, OpDiv} {
		if _, err := New(op, "", 0, ts, Lit(sqlrow.Int(2))); err == nil {
			t.Errorf("%s of a TIMESTAMP: want a type error", op)
		}
	}
	if _, err := New(OpAdd, "", 0, ts, ts); err == nil {
		t.Error("TIMESTAMP + TIMESTAMP: want a type error")
	}
}
