package kafka

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// This file holds the two raw transaction requests of a recovery, which
// franz-go's producer API does not offer: committing a transaction that
// another producer began, and fencing a transactional id.

// retryBackoff is the wait between tries of a request the coordinator
// cannot answer yet.
const retryBackoff = 50 * time.Millisecond

// commitPending commits a transaction sealed by a restored checkpoint with
// EndTxn, as its producer would have, with the producer id and epoch it
// recorded. The broker's answers tell what became of it:
//
//   - success: committed now, or the retry of a commit that happened;
//   - PRODUCER_FENCED or INVALID_PRODUCER_EPOCH: a newer epoch of the id
//     exists, which the sink only creates after committing the transaction
//     (a producer on the next turn of its slot, or a recovery), so it was
//     committed;
//   - INVALID_TXN_STATE or INVALID_PRODUCER_ID_MAPPING: it was aborted, or
//     the broker forgot it: the transaction timeout was shorter than the
//     time from the transaction's first record to the restore, and its
//     records are lost. This is logged as an error, and the restore goes
//     on.
func (s *txSink) commitPending(cl *kgo.Client, p pendingTxn) error {
	err := s.endSealed(cl, p)
	switch {
	case err == nil:
		s.log.Info("kafka sink: committed the transaction of a restored checkpoint", "transactionalId", p.TransactionalID, "checkpoint", p.Checkpoint)
	case errors.Is(err, kerr.ProducerFenced), errors.Is(err, kerr.InvalidProducerEpoch):
		s.log.Info("kafka sink: the transaction of a restored checkpoint was committed before", "transactionalId", p.TransactionalID, "checkpoint", p.Checkpoint)
	case errors.Is(err, kerr.InvalidTxnState), errors.Is(err, kerr.InvalidProducerIDMapping):
		s.log.Error("kafka sink: the transaction of a restored checkpoint was aborted by the broker, its records are lost: raise transactionTimeout",
			"transactionalId", p.TransactionalID, "checkpoint", p.Checkpoint, "err", err)
	default:
		return fmt.Errorf("kafka sink %s: committing transaction %s of checkpoint %d: %w", s.conv.topic, p.TransactionalID, p.Checkpoint, err)
	}
	return nil
}

// endSealed commits sealed transaction p, with EndTxn for its producer id
// and epoch, through cl. Only a commit the broker confirms is a success:
// anything else leaves the transaction to the restore that follows the
// task's failure (commitPending).
func (s *txSink) endSealed(cl *kgo.Client, p pendingTxn) error {
	req := kmsg.NewPtrEndTxnRequest()
	req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit = p.TransactionalID, p.ProducerID, p.Epoch, true
	return s.retry(func(ctx context.Context) (int16, error) {
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			return 0, err
		}
		return resp.ErrorCode, nil
	})
}

// fence sends InitProducerID for transactional id id, as a new producer
// would: the broker aborts the id's open transaction, if any, and bumps
// its epoch, so that a producer still alive from an earlier attempt (a
// zombie) can no longer write or commit under it.
func (s *txSink) fence(cl *kgo.Client, id string) error {
	req := kmsg.NewPtrInitProducerIDRequest()
	req.TransactionalID = &id
	req.TransactionTimeoutMillis = int32(s.txnTimeout.Milliseconds())
	err := s.retry(func(ctx context.Context) (int16, error) {
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			return 0, err
		}
		return resp.ErrorCode, nil
	})
	if err != nil {
		return fmt.Errorf("kafka sink %s: fencing transactional id %s: %w", s.conv.topic, id, err)
	}
	return nil
}

// retry issues a request until its error code is not a retriable one, or
// the request timeout passes, and returns the error of the last answer.
func (s *txSink) retry(try func(ctx context.Context) (int16, error)) error {
	ctx, cancel := context.WithTimeout(context.Background(), s.reqTimeout)
	defer cancel()
	for {
		code, err := try(ctx)
		if err == nil {
			err = kerr.ErrorForCode(code)
		}
		if err == nil || !(errors.Is(err, kerr.ConcurrentTransactions) || kerr.IsRetriable(err)) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(retryBackoff):
		}
	}
}
