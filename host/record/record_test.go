package record

import (
	"bytes"
	"fmt"
	"testing"
)

func TestBatchKeepsEveryRecordIntactAcrossArenaGrowth(t *testing.T) {
	var b Batch
	for round := 0; round < 3; round++ {
		want := make([][]byte, 0, 500)
		for i := 0; i < 500; i++ {
			v := bytes.Repeat([]byte(fmt.Sprint(i)), i%37+1)
			want = append(want, v)
			b.Append([]byte(fmt.Sprint("k", i)), v, int64(i))
		}
		if b.Len() != len(want) {
			t.Fatalf("round %d: len %d, want %d", round, b.Len(), len(want))
		}
		for i, r := range b.Records {
			if !bytes.Equal(r.Value, want[i]) || string(r.Key) != fmt.Sprint("k", i) || r.Timestamp != int64(i) {
				t.Fatalf("round %d: record %d corrupted: %q %q %d", round, i, r.Key, r.Value, r.Timestamp)
			}
		}
		b.Reset()
		if b.Len() != 0 || b.Bytes() != 0 {
			t.Fatalf("reset left %d records, %d bytes", b.Len(), b.Bytes())
		}
	}
}

func TestAppendedRecordsDoNotAliasTheCallersBuffer(t *testing.T) {
	var b Batch
	buf := []byte("hello")
	b.Append(nil, buf, NoTimestamp)
	copy(buf, "XXXXX")
	if got := string(b.Records[0].Value); got != "hello" {
		t.Fatalf("value aliased caller buffer: %q", got)
	}
}

func TestRefilledBatchAllocatesNothing(t *testing.T) {
	var b Batch
	v := []byte("some,record,value")
	fill := func() {
		b.Reset()
		for i := 0; i < 1000; i++ {
			b.Append(nil, v, 0)
		}
	}
	fill()
	fill() // the arena reaches its working size
	if n := testing.AllocsPerRun(10, fill); n != 0 {
		t.Fatalf("refill allocated %v times", n)
	}
}

func TestCSVField(t *testing.T) {
	for _, tc := range []struct {
		v    string
		n    int
		want string
		ok   bool
	}{
		{"a,b,c", 0, "a", true}, {"a,b,c", 2, "c", true}, {"a,b,c", 3, "", false},
		{"", 0, "", true}, {",", 1, "", true}, {"a,,c", 1, "", true}, {"abc", 1, "", false},
	} {
		got, ok := CSVField([]byte(tc.v), tc.n)
		if string(got) != tc.want || ok != tc.ok {
			t.Errorf("CSVField(%q, %d) = %q, %v; want %q, %v", tc.v, tc.n, got, ok, tc.want, tc.ok)
		}
	}
}
