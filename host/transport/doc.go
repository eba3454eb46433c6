// Package transport is the gRPC edge of the exchange: it carries the
// batches of a channel, from one sending subtask to one receiving subtask,
// between task managers.
//
// A task manager serves the floe.v1.Exchange service with a Server. When it
// deploys a receiving subtask it asks the Server for the subtask's
// exchange.Receiver, and releases it when the task ends. A sending subtask
// holds one Sender per receiving subtask on another task manager (a
// LocalSender for one on its own), each an exchange.Sender.
//
// # Protocol
//
// Each channel is one Transfer stream. The sender opens it with a ChannelID
// message, then sends batches in the exchange package's wire format and
// checkpoint barriers, and finally end, after which it half-closes; the
// server closes the stream with an OK status once end is in the receiver's
// buffer, so a Sender's End returns only when its batches have been
// delivered.
//
// Flow control is by credit, counted in messages. Once the receiving task is
// deployed the server grants perSenderBatches credits on the stream; each
// batch or barrier the sender sends spends one, and each one of the channel
// the task consumes (Recv returns it) grants one back. A sender without
// credit waits, which back-pressures its task; a sender that sends without
// credit breaks the protocol and its stream fails. So the receiver buffers
// at most perSenderBatches batches per channel, whatever the senders do.
//
// Tasks are deployed in parallel, so a stream may arrive before its
// receiving task: it waits, up to ServerOptions.RegisterTimeout, for the
// task manager to register the receiver, and fails with NotFound after
// that. A Sender retries opening a stream that fails with Unavailable before
// it was granted any credit (the receiving task manager is starting), for
// up to its open timeout; nothing was delivered on such a stream.
//
// A channel that breaks before its end, because the sending task manager
// died or the network failed, fails the receiver: its Recv returns an error
// wrapping ErrChannelBroken, never a clean end of input. There is no
// reconnection after data has flowed; the job restarts from a checkpoint.
package transport
