package conformance

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/floe-stream/floe/host/udf"
)

// script is a generated conformance script: commands and their input.
type script struct {
	name  string
	steps []datadriven.TestData
}

// runScript runs s through a fresh instance of mod and returns the whole
// transcript.
func runScript(t *testing.T, mod *udf.Module, s script) string {
	h := &harness{mod: mod}
	defer h.close()
	var b strings.Builder
	for i := range s.steps {
		d := &s.steps[i]
		d.Pos = fmt.Sprintf("%s step %d", s.name, i)
		fmt.Fprintf(&b, "%s\n%s\n", d.Cmd, h.run(t, d))
		if h.dead {
			break
		}
	}
	return b.String()
}

func cmd(name string, args ...string) datadriven.TestData {
	d := datadriven.TestData{Cmd: name}
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		arg := datadriven.CmdArg{Key: k}
		if ok {
			arg.Vals = []string{v}
		}
		d.CmdArgs = append(d.CmdArgs, arg)
	}
	return d
}

func batch(lines []string) datadriven.TestData {
	return datadriven.TestData{Cmd: "batch", Input: strings.Join(lines, "\n")}
}

// randomScripts returns one script per function of README.md over random
// input, ending with the inputs that make the failing functions fail.
func randomScripts(r *rand.Rand) []script {
	word := func() string {
		const letters = "abcdefghijklmnopqrstuvwxyzABC-_é"
		n := r.IntN(8)
		b := make([]byte, 0, n)
		for range n {
			b = append(b, letters[r.IntN(len(letters))])
		}
		return string(b)
	}
	key := func() string { return fmt.Sprintf("k%d", r.IntN(20)) }
	batches := func(n, size int, gen func() string) []datadriven.TestData {
		var out []datadriven.TestData
		for range n {
			lines := make([]string, size)
			for i := range lines {
				lines[i] = gen()
			}
			out = append(out, batch(lines))
		}
		return out
	}
	var scripts []script
	add := func(name string, open datadriven.TestData, steps ...datadriven.TestData) {
		scripts = append(scripts, script{name: name, steps: append([]datadriven.TestData{open}, steps...)})
	}
	add("upper", cmd("open", "function=upper"), append(batches(10, 100, word), batch([]string{"ok", "poison"}))...)
	add("evens", cmd("open", "function=evens"), batches(10, 100, word)...)
	add("split", cmd("open", "function=split"), batches(10, 50, func() string {
		var f []string
		for range r.IntN(6) {
			switch r.IntN(4) {
			case 0:
				f = append(f, "#"+word())
			case 1:
				f = append(f, fmt.Sprint(r.IntN(100000)))
			default:
				f = append(f, word())
			}
		}
		return strings.Join(f, ",")
	})...)
	add("tag", cmd("open", "function=tag", "greeting=hey", "subtask=2", "parallelism=5"), batches(3, 50, word)...)
	keyed := func(values func() string) func() string {
		return func() string { return fmt.Sprintf("%s@%d %s", key(), r.IntN(1000), values()) }
	}
	add("count", cmd("open", "keyed", "function=count"), batches(10, 100, keyed(word))...)
	add("keyedcount", cmd("open", "keyed", "function=keyedcount"), batches(10, 100, keyed(word))...)
	add("distinct", cmd("open", "keyed", "function=distinct"), batches(10, 100, keyed(func() string {
		switch r.IntN(20) {
		case 0:
			return "?"
		case 1:
			return "!"
		}
		return fmt.Sprint(r.IntN(10))
	}))...)
	var session []datadriven.TestData
	ts, now := int64(0), int64(0)
	for range 20 {
		lines := make([]string, 50)
		for i := range lines {
			if r.IntN(25) == 0 {
				lines[i] = key() + "@" + fmt.Sprint(ts) + " wm?"
				continue
			}
			lines[i] = fmt.Sprintf("%s@%d x", key(), ts+r.Int64N(40)-20)
			ts += r.Int64N(3)
		}
		now += r.Int64N(800)
		session = append(session, batch(lines), cmd("watermark", fmt.Sprint(ts-20)), cmd("processing-time", fmt.Sprint(now)))
	}
	add("session", cmd("open", "keyed", "function=session", "gap=15", "idle=2000"), session...)
	add("buffer", cmd("open", "function=buffer", "size=4"), batches(10, 30, func() string {
		if r.IntN(15) == 0 {
			return "?"
		}
		return word() + "x"
	})...)
	add("q1", cmd("open", "function=q1"), append(batches(10, 100, func() string {
		return fmt.Sprintf("%d,%d,%d,channel-%d,https://x/%d,2026-11-29 10:00:00.000",
			1000+r.IntN(9000), 1000+r.IntN(9000), r.Int64N(1e15), r.IntN(10), r.IntN(10))
	}), batch([]string{"1,2,3,4,5,6", "1,2,x,4,5,6"}))...)
	return scripts
}
