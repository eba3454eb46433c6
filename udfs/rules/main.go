// Command rules applies a broadcast stream of rules to a keyed stream of
// events, with broadcast state (a job spec's coProcess with broadcast:,
// docs/jobs.md, Flink's KeyedBroadcastProcessFunction).
//
// Rules "rule,limit" go to every subtask: onRule, the broadcast input's
// function, keeps them in the broadcast state rules. Events
// "user,seq,rule,amount" are keyed by user: onEvent looks up the rule the
// event names and emits "seq,user,rule,amount,verdict", the verdict being
// alert when the amount is over the rule's limit and ok otherwise.
//
// The two inputs interleave as they arrive, so an event may come before
// its rule. Such an event waits in its user's keyed state until the end of
// the input (an event-time timer at the end of time, which fires once both
// inputs have ended and every rule has arrived), and is decided then; a
// rule that never came gives the verdict norule. A rule's limit never
// changes once given (a later definition is ignored), so the output does
// not depend on how the inputs interleave: each event is decided once,
// against the one limit of its rule.
package main

import (
	"bytes"
	"errors"
	"math"
	"strconv"

	floe "github.com/floe-stream/floe/sdk/go"
)

func init() {
	floe.Process("onEvent", onEvent)
	floe.Process("onRule", onRule)
	floe.OnTimer("onEvent", atEnd)
}

var (
	// rules maps a rule's name to its limit, in every subtask.
	rules = floe.NewBroadcastState("rules", floe.String, floe.Int64)
	// waiting holds a user's events whose rule had not arrived.
	waiting = floe.NewListState("waiting", floe.Bytes)
)

// endOfTime is when waiting events are decided: the watermark reaches it
// when both bounded inputs end.
const endOfTime = math.MaxInt64

// onRule keeps a rule "rule,limit"; it runs in every subtask.
func onRule(_ *floe.Context, rec []byte, _ floe.Emitter) error {
	name, limit, ok := bytes.Cut(rec, []byte(","))
	if !ok {
		return errors.New("want rule,limit")
	}
	n, err := strconv.ParseInt(string(limit), 10, 64)
	if err != nil {
		return errors.New("want rule,limit with an integer limit")
	}
	if _, ok := rules.Get(string(name)); !ok {
		rules.Put(string(name), n)
	}
	return nil
}

// onEvent decides an event "user,seq,rule,amount" once its rule is known.
func onEvent(ctx *floe.Context, rec []byte, out floe.Emitter) error {
	e, err := parseEvent(rec)
	if err != nil {
		return err
	}
	limit, ok := rules.Get(e.rule)
	if !ok {
		waiting.Append(ctx, rec)
		ctx.RegisterEventTimer(endOfTime)
		return nil
	}
	out.Emit(e.verdict(limit, true))
	return nil
}

// atEnd decides the user's waiting events, against whatever rules came.
func atEnd(ctx *floe.Context, _ floe.Timer, out floe.Emitter) error {
	for _, rec := range waiting.Get(ctx) {
		e, err := parseEvent(rec)
		if err != nil {
			return err
		}
		limit, ok := rules.Get(e.rule)
		out.Emit(e.verdict(limit, ok))
	}
	waiting.Clear(ctx)
	return nil
}

type event struct {
	user, seq, rule string
	amount          int64
}

func parseEvent(rec []byte) (event, error) {
	f := bytes.Split(rec, []byte(","))
	if len(f) != 4 {
		return event{}, errors.New("want user,seq,rule,amount")
	}
	amount, err := strconv.ParseInt(string(f[3]), 10, 64)
	if err != nil {
		return event{}, errors.New("want user,seq,rule,amount with an integer amount")
	}
	return event{user: string(f[0]), seq: string(f[1]), rule: string(f[2]), amount: amount}, nil
}

// verdict renders the decision "seq,user,rule,amount,verdict"; known says
// whether the rule exists.
func (e event) verdict(limit int64, known bool) []byte {
	v := "norule"
	switch {
	case known && e.amount > limit:
		v = "alert"
	case known:
		v = "ok"
	}
	return []byte(e.seq + "," + e.user + "," + e.rule + "," + strconv.FormatInt(e.amount, 10) + "," + v)
}

func main() {}
