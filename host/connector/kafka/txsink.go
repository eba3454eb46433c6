package kafka

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/floe-stream/floe/host/connector"
	"github.com/floe-stream/floe/host/record"
)

// txSink is the exactly-once sink. It writes the records of each checkpoint
// interval in a transaction of its own, under the transactional id of the
// next slot in a ring of Slots: <prefix>-<subtask>-<slot>. PreCommit seals
// the open transaction (flushes it and notes its producer id and epoch in
// the checkpoint), Commit commits the sealed ones, and Recover commits what
// a restored checkpoint sealed, then fences every slot of the subtasks it
// takes over, which aborts whatever they left open.
type txSink struct {
	conv    converter
	opts    []kgo.Opt
	prefix  string
	subtask int
	// txnTimeout is asked of the broker; reqTimeout bounds fencing and
	// recovery requests, flushTimeout a PreCommit's flush.
	txnTimeout, reqTimeout, flushTimeout, deliveryTimeout time.Duration
	log                                                   *slog.Logger

	// seq numbers the next transaction; its slot is seq % Slots.
	seq    int64
	cur    *txn
	sealed []*txn
	closed bool
}

// txn is one transaction, open or sealed by a checkpoint.
type txn struct {
	slot   int
	cl     *kgo.Client
	failed failure
	ctxs   deadlines
	state  pendingTxn
}

// txState is the sink's state at a checkpoint: the transactions sealed and
// not yet committed, which a restore from the checkpoint commits.
type txState struct {
	Prefix  string       `json:"prefix"`
	Subtask int          `json:"subtask"`
	Slots   int          `json:"slots"`
	Pending []pendingTxn `json:"pending,omitempty"`
}

// pendingTxn identifies a sealed transaction well enough to commit it from
// another client: a transactional id, and the producer id and epoch that
// the broker knows the open transaction by.
type pendingTxn struct {
	Checkpoint      int64  `json:"checkpoint"`
	TransactionalID string `json:"transactionalId"`
	ProducerID      int64  `json:"producerId"`
	Epoch           int16  `json:"epoch"`
}

// owner is the subtask of a sink whose slots a recovery fences.
type owner struct {
	prefix  string
	subtask int
	slots   int
}

func openTxSink(cfg SinkConfig, opts []kgo.Opt, subtask int, restored bool) (*txSink, error) {
	s := &txSink{
		conv: newConverter(cfg), opts: opts, prefix: cfg.TransactionalIDPrefix, subtask: subtask,
		txnTimeout:      orDefault(cfg.TransactionTimeout, DefaultTransactionTimeout),
		reqTimeout:      orDefault(cfg.RequestTimeout, DefaultRequestTimeout),
		flushTimeout:    orDefault(cfg.DeliveryTimeout, DefaultDeliveryTimeout) + time.Minute,
		deliveryTimeout: orDefault(cfg.DeliveryTimeout, DefaultDeliveryTimeout),
		log:             orDiscard(cfg.Logger),
	}
	if restored {
		return s, nil
	}
	// A fresh start owes nothing to earlier runs: what they left open is
	// aborted.
	if err := s.recover(nil); err != nil {
		return nil, err
	}
	return s, nil
}

// transactionalID names slot slot of subtask sub.
func transactionalID(prefix string, sub, slot int) string {
	return fmt.Sprintf("%s-%d-%d", prefix, sub, slot)
}

// Write implements connector.Sink: it opens a transaction if none is open
// and hands the records to its producer. A failed delivery is returned by
// a later call.
func (s *txSink) Write(b *record.Batch) error {
	if s.closed {
		return connector.ErrClosed
	}
	if b.Len() == 0 {
		return nil
	}
	if s.cur == nil {
		if err := s.begin(); err != nil {
			return err
		}
	}
	if err := s.cur.failed.get(); err != nil {
		return err
	}
	recs, err := s.conv.records(b)
	if err != nil {
		return err
	}
	ctx := s.cur.ctxs.next()
	for i := range recs {
		s.cur.cl.Produce(ctx, &recs[i], s.cur.failed.promise)
	}
	return nil
}

// begin opens a transaction on the next slot, with a producer of its own:
// its InitProducerID bumps the slot's epoch, so a transaction is never
// confused with an older one of the same slot.
func (s *txSink) begin() error {
	slot := int(s.seq % Slots)
	for _, t := range s.sealed {
		if t.slot == slot {
			return fmt.Errorf("kafka sink %s: %w: the %d checkpoints that sealed them have not completed",
				s.conv.topic, errTooManyPending, len(s.sealed))
		}
	}
	id := transactionalID(s.prefix, s.subtask, slot)
	cl, err := kgo.NewClient(append(s.opts[:len(s.opts):len(s.opts)], kgo.TransactionalID(id), kgo.TransactionTimeout(s.txnTimeout))...)
	if err == nil {
		err = cl.BeginTransaction()
	}
	if err != nil {
		return fmt.Errorf("kafka sink %s: transaction %s: %w", s.conv.topic, id, err)
	}
	s.cur = &txn{slot: slot, cl: cl, ctxs: deadlines{timeout: s.deliveryTimeout}, state: pendingTxn{TransactionalID: id}}
	s.seq++
	return nil
}

// Flush implements connector.Sink: it waits until the open transaction's
// records are acknowledged.
func (s *txSink) Flush() error {
	if s.closed {
		return connector.ErrClosed
	}
	if s.cur == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.flushTimeout)
	defer cancel()
	if err := s.cur.cl.Flush(ctx); err != nil {
		return fmt.Errorf("kafka sink %s: transaction %s: flush: %w", s.conv.topic, s.cur.state.TransactionalID, err)
	}
	s.cur.ctxs.release()
	return s.cur.failed.get()
}

// PreCommit implements connector.Transactional: the open transaction, once
// flushed, is sealed as part of checkpoint id, and the state lists every
// sealed transaction not yet committed.
func (s *txSink) PreCommit(id int64) ([]byte, error) {
	if s.closed {
		return nil, connector.ErrClosed
	}
	if s.cur != nil {
		if err := s.Flush(); err != nil {
			return nil, err
		}
		ctx, cancel := context.WithTimeout(context.Background(), s.reqTimeout)
		pid, epoch, err := s.cur.cl.ProducerID(ctx)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("kafka sink %s: transaction %s: %w", s.conv.topic, s.cur.state.TransactionalID, err)
		}
		s.cur.state.Checkpoint, s.cur.state.ProducerID, s.cur.state.Epoch = id, pid, epoch
		s.sealed = append(s.sealed, s.cur)
		s.cur = nil
	}
	st := txState{Prefix: s.prefix, Subtask: s.subtask, Slots: Slots}
	for _, t := range s.sealed {
		st.Pending = append(st.Pending, t.state)
	}
	return json.Marshal(st)
}

// Commit implements connector.Transactional: it commits, in order, the
// transactions sealed for checkpoints up to id.
func (s *txSink) Commit(id int64) error {
	if s.closed {
		return connector.ErrClosed
	}
	for len(s.sealed) > 0 && s.sealed[0].state.Checkpoint <= id {
		t := s.sealed[0]
		// NB: not t.cl.EndTransaction: franz-go ends a transaction in
		// which it counts no partition added with an abort, and returns
		// nil for the commit asked (seen under load: the checkpoint's
		// records aborted, the sink none the wiser). EndTxn for the
		// producer id and epoch the checkpoint sealed commits exactly
		// that transaction, or fails.
		err := s.endSealed(t.cl, t.state)
		if err != nil {
			// NB: the transaction stays sealed: the restore that follows
			// the task's failure commits it.
			return fmt.Errorf("kafka sink %s: committing transaction %s of checkpoint %d: %w",
				s.conv.topic, t.state.TransactionalID, t.state.Checkpoint, err)
		}
		t.cl.Close()
		s.sealed = s.sealed[1:]
	}
	return nil
}

// Recover implements connector.Transactional: it commits the transactions
// that the restored states list, then fences the slots of this subtask and
// of every old subtask whose state it got, aborting what they left open.
func (s *txSink) Recover(states [][]byte) error {
	if s.closed {
		return connector.ErrClosed
	}
	var decoded []txState
	for _, b := range states {
		var st txState
		if err := json.Unmarshal(b, &st); err != nil {
			return fmt.Errorf("kafka sink %s: restored state: %w", s.conv.topic, err)
		}
		decoded = append(decoded, st)
	}
	return s.recover(decoded)
}

// recover commits what states list and fences the slots of their
// subtasks that share this sink's prefix, and this subtask's own.
func (s *txSink) recover(states []txState) error {
	cl, err := kgo.NewClient(s.opts...)
	if err != nil {
		return fmt.Errorf("kafka sink %s: %w", s.conv.topic, err)
	}
	defer cl.Close()
	owners := []owner{{s.prefix, s.subtask, Slots}}
	for _, st := range states {
		for _, p := range st.Pending {
			if err := s.commitPending(cl, p); err != nil {
				return err
			}
		}
		// NB: the transactions of a job restored under another prefix
		// are committed, but that job's slots are not ours to fence.
		if o := (owner{st.Prefix, st.Subtask, st.Slots}); st.Prefix == s.prefix && o != owners[0] {
			owners = append(owners, o)
		}
	}
	for _, o := range owners {
		for slot := range o.slots {
			if err := s.fence(cl, transactionalID(o.prefix, o.subtask, slot)); err != nil {
				return err
			}
		}
	}
	s.seq = 0
	return nil
}

// abortTimeout bounds the abort of the open transaction when the sink
// closes: a failing task should not wait long for a broker that is gone.
const abortTimeout = 5 * time.Second

// Close implements connector.Sink. The open transaction, which no
// checkpoint covers, is aborted; sealed ones are left to the broker, for a
// restore to commit (or its transaction timeout to abort).
func (s *txSink) Close() error {
	if s.closed {
		return connector.ErrClosed
	}
	s.closed = true
	var err error
	if t := s.cur; t != nil {
		ctx, cancel := context.WithTimeout(context.Background(), min(s.reqTimeout, abortTimeout))
		err = errors.Join(t.cl.AbortBufferedRecords(ctx), t.cl.EndTransaction(ctx, kgo.TryAbort))
		cancel()
		t.cl.Close()
		t.ctxs.release()
		s.cur = nil
	}
	for _, t := range s.sealed {
		t.cl.Close()
	}
	s.sealed = nil
	if err != nil {
		return fmt.Errorf("kafka sink %s: aborting the open transaction: %w", s.conv.topic, err)
	}
	return nil
}
