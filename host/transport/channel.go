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
