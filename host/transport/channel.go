package transport

import (
	"errors"
	"fmt"

	floev1 "github.com/floe-stream/floe/proto/floe/v1"
)

// ChannelKey names a receiving subtask: the input of all the channels that
// end in it.
type ChannelKey struct {
	Job     string
	Attempt int32
	Stage   int32
	Subtask int32
}

func (k ChannelKey) String() string {
	return fmt.Sprintf("job %s attempt %d stage %d subtask %d", k.Job, k.Attempt, k.Stage, k.Subtask)
}

// keyOf returns the receiving subtask of channel id.
func keyOf(id *floev1.ChannelID) ChannelKey {
	return ChannelKey{Job: id.GetJobId(), Attempt: id.GetAttempt(), Stage: id.GetStage(), Subtask: id.GetSubtask()}
}

// channelName names channel id in errors.
func channelName(id *floev1.ChannelID) string {
	return fmt.Sprintf("channel from sender %d to %v", id.GetSender(), keyOf(id))
}

// Peer is the task manager at the other end of a channel, as far as one
// end knows it: its id and its address, either of which may be empty.
type Peer struct {
	TaskManager string
	Addr        string
}

// String names the peer in errors as "task manager ID at ADDR", leaving
// out what is unknown, or returns "" if nothing is known. The scheduler
// looks for "task manager ID" in a broken channel's message to find which
// task manager to blame, so the wording is part of the contract.
func (p Peer) String() string {
	switch {
	case p.TaskManager != "" && p.Addr != "":
		return "task manager " + p.TaskManager + " at " + p.Addr
	case p.TaskManager != "":
		return "task manager " + p.TaskManager
	case p.Addr != "":
		return "task manager at " + p.Addr
	}
	return ""
}

// Metadata keys with which a Sender tells the receiving task manager who
// it is, so that a broken channel's error on the receiving side names it.
const (
	mdTaskManager = "floe-sender-task-manager"
	mdAddr        = "floe-sender-addr"
)

// sendingName names a channel in the errors of its sending end, with the
// receiving task manager when known.
func sendingName(id *floev1.ChannelID, to Peer) string {
	if to == (Peer{}) {
		return channelName(id)
	}
	return fmt.Sprintf("%s on %s", channelName(id), to)
}

// receivingName names a channel in the errors of its receiving end, with
// the sending task manager when known.
func receivingName(id *floev1.ChannelID, from Peer) string {
	if from == (Peer{}) {
		return channelName(id)
	}
	return fmt.Sprintf("channel from sender %d (%s) to %v", id.GetSender(), from, keyOf(id))
}

var (
	// ErrChannelBroken is wrapped by the error a Receiver returns when a
	// sender's channel broke before its end.
	ErrChannelBroken = errors.New("transport: channel broke before its end")
	// ErrReleased is wrapped by the errors of a released Receiver and of
	// the senders whose channel it cut.
	ErrReleased = errors.New("transport: receiving task released")
	// ErrClosed is returned by a closed Sender or Server.
	ErrClosed = errors.New("transport: closed")
)
