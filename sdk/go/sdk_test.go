//go:build !wasip1

package floe_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	floe "github.com/floe-stream/floe/sdk/go"
	"github.com/floe-stream/floe/sdk/go/internal/nativehost"
)

// fakeHost records what the SDK hands the host, and keeps value state in a
// map keyed by state id and record index.
type fakeHost struct {
	runs   [][]byte
	fails  []string
	states map[string]int32
	values map[string][]byte
	key    func(rec int32) string
}

func (h *fakeHost) Emit(run []byte)                 { h.runs = append(h.runs, bytes.Clone(run)) }
func (h *fakeHost) OutputDeclare(name string) int32 { return 7 }
func (h *fakeHost) Fail(rec int32, msg string) {
	h.fails = append(h.fails, fmt.Sprintf("%d:%s", rec, msg))
}
func (h *fakeHost) StateDeclare(kind int32, name string, flags int32) int32 {
	id := int32(len(h.states))
	h.states[name] = id
	return id
}
func (h *fakeHost) ValueGet(state, rec int32, buf []byte) int32 {
	v, ok := h.values[fmt.Sprint(state, "/", h.key(rec))]
	if !ok {
		return -1
	}
	if len(v) <= cap(buf) {
		copy(buf[:cap(buf)], v)
	}
	return int32(len(v))
}
func (h *fakeHost) ValuePut(state, rec int32, v []byte) {
	h.values[fmt.Sprint(state, "/", h.key(rec))] = bytes.Clone(v)
}
func (h *fakeHost) ValueDelete(state, rec int32)                  {}
func (h *fakeHost) ListAppend(state, rec int32, v []byte)         {}
func (h *fakeHost) ListGet(state, rec int32, buf []byte) int32    { return -1 }
func (h *fakeHost) ListClear(state, rec int32)                    {}
func (h *fakeHost) MapGet(state, rec int32, k, buf []byte) int32  { return -1 }
func (h *fakeHost) MapPut(state, rec int32, k, v []byte)          {}
func (h *fakeHost) MapDelete(state, rec int32, k []byte)          {}
func (h *fakeHost) MapEntries(state, rec int32, buf []byte) int32 { return -1 }
func (h *fakeHost) MapClear(state, rec int32)                     {}
func (h *fakeHost) TimerRegister(rec, domain int32, ts int64)     {}
func (h *fakeHost) TimerDelete(rec, domain int32, ts int64)       {}
func (h *fakeHost) CurrentWatermark() int64                       { return floe.NoTimestamp }
func (h *fakeHost) ProcessingTime() int64                         { return 0 }

var total = floe.NewValueState("total", floe.Int64, floe.Queryable())

func init() {
	floe.Process("sum", func(ctx *floe.Context, rec []byte, out floe.Emitter) error {
		n, _ := total.Get(ctx)
		n += int64(len(rec))
		total.Put(ctx, n)
		if string(rec) == "side" {
			out.EmitTo("extra", rec)
		}
		out.Emit(fmt.Appendf(nil, "%s=%d", ctx.Key(), n))
		return nil
	})
}

// The layouts below are written from sdk/ABI.md, not from the SDK's code.

func params(kv ...string) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(kv)/2))
	for _, s := range kv {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
		b = append(b, s...)
	}
	return b
}

func batch(recs ...[3]string) []byte {
	var b []byte
	for i, r := range recs {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(r[0])))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(r[1])))
		b = binary.LittleEndian.AppendUint64(b, uint64(int64(1000+i)))
		b = append(b, r[0]...)
		b = append(b, r[1]...)
	}
	return b
}

type out struct {
	port  uint32
	value string
	ts    int64
}

func decodeRuns(runs [][]byte) []out {
	var got []out
	for _, run := range runs {
		for len(run) > 0 {
			n := binary.LittleEndian.Uint32(run[4:])
			got = append(got, out{binary.LittleEndian.Uint32(run), string(run[16 : 16+n]), int64(binary.LittleEndian.Uint64(run[8:]))})
			run = run[16+n:]
		}
	}
	return got
}

func TestSDKSpeaksTheDocumentedLayouts(t *testing.T) {
	recs := [][3]string{{"a", "xx"}, {"b", "yyy"}, {"a", "side"}}
	h := &fakeHost{states: map[string]int32{}, values: map[string][]byte{},
		key: func(rec int32) string { return recs[rec][0] }}
	nativehost.Current = h
	mod := nativehost.Module
	p := params("floe.function", "sum", "greeting", "hi")
	copy(mod.Alloc(len(p)), p)
	if st := mod.Open(len(p)); st != 0 {
		t.Fatalf("open returned %d: %v", st, h.fails)
	}
	if _, ok := h.states["total"]; !ok {
		t.Fatalf("state not declared: %v", h.states)
	}
	b := batch(recs...)
	copy(mod.Alloc(len(b)), b)
	if st := mod.Process(len(b), len(recs)); st != 0 {
		t.Fatalf("process returned %d: %v", st, h.fails)
	}
	got := fmt.Sprint(decodeRuns(h.runs))
	want := fmt.Sprint([]out{{0, "a=2", 1000}, {0, "b=3", 1001}, {7, "side", 1002}, {0, "a=6", 1002}})
	if got != want {
		t.Fatalf("emitted %s, want %s", got, want)
	}
	// The int64 codec stores 8 bytes little-endian, as the ABI says.
	if v := h.values[fmt.Sprint(h.states["total"], "/a")]; len(v) != 8 || binary.LittleEndian.Uint64(v) != 6 {
		t.Fatalf("stored %x", v)
	}
	// An unknown function fails open with a message.
	p = params("floe.function", "nope")
	copy(mod.Alloc(len(p)), p)
	if st := mod.Open(len(p)); st == 0 || len(h.fails) == 0 {
		t.Fatal("opening an unknown function succeeded")
	}
}

func init() {
	// In place, or past dst's room when the record asks for it.
	floe.MapAppend("bang", func(dst, rec []byte) ([]byte, error) {
		if string(rec) == "big" {
			return append(dst, bytes.Repeat([]byte("!"), 1<<12)...), nil
		}
		return append(append(dst, rec...), '!'), nil
	})
	// A result that is not dst at all.
	floe.MapAppend("fresh", func(dst, rec []byte) ([]byte, error) {
		return append([]byte("new:"), rec...), nil
	})
}

func TestMapAppendEmitsWhatItAppendsWhereverItIs(t *testing.T) {
	for _, tc := range []struct {
		fn   string
		want []out
	}{
		{"bang", []out{{0, "xx!", 1000}, {0, strings.Repeat("!", 1<<12), 1001}, {0, "!", 1002}, {0, "yyy!", 1003}}},
		{"fresh", []out{{0, "new:xx", 1000}, {0, "new:big", 1001}, {0, "new:", 1002}, {0, "new:yyy", 1003}}},
	} {
		h := &fakeHost{states: map[string]int32{}, values: map[string][]byte{}}
		nativehost.Current = h
		mod := nativehost.Module
		p := params("floe.function", tc.fn)
		copy(mod.Alloc(len(p)), p)
		if st := mod.Open(len(p)); st != 0 {
			t.Fatalf("open returned %d: %v", st, h.fails)
		}
		b := batch([3]string{"", "xx"}, [3]string{"", "big"}, [3]string{"", ""}, [3]string{"k", "yyy"})
		copy(mod.Alloc(len(b)), b)
		if st := mod.Process(len(b), 4); st != 0 {
			t.Fatalf("process returned %d: %v", st, h.fails)
		}
		if got, want := fmt.Sprint(decodeRuns(h.runs)), fmt.Sprint(tc.want); got != want {
			t.Errorf("%s emitted %.200s, want %.200s", tc.fn, got, want)
		}
	}
}
