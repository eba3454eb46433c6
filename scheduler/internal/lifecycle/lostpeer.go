package lifecycle

import (
	"fmt"
	"strings"
	"time"
)

// When a task manager dies, the first failure the machine hears of is
// usually not its own: a task on a surviving task manager reports that its
// channel to or from the dead one broke, well before the dead one's
// heartbeat times out. Blaming that survivor would mislead, so the machine
// remembers such a failure as the job's suspect (the failed attempt's peer
// task manager), has the driver check the peer at once (CancelTasks is
// sent to it anyway, marked Check; a driver that finds it unreachable
// loses it), and if the peer is lost within a heartbeat timeout and
// interval of the failure, rewrites the failure's reason — the job's
// message, if it still is the failure's, its history entry and its
// exception — to name the lost task manager first, how it was found lost,
// then the symptom. A peer that stays alive leaves the original message.
//
// The transport names a channel's peer as "task manager ID at ADDR" in the
// message of a broken channel (host/transport); peerNamed finds it.

// suspect is a failed attempt's channel failure whose peer task manager
// may be the real cause.
type suspect struct {
	// Peer is the task manager the broken channel led to or came from,
	// and At when the failure was reported.
	Peer string
	At   time.Time
	// Reason is the failure's reason as given to failAttempt, Symptom its
	// rewording to follow the lost peer's.
	Reason  string
	Symptom string
	// History and Exception are the absolute indexes (counting dropped
	// entries) of the failure's history entry and exception; -1 if none.
	History   int
	Exception int
}

// channelMarks are what a task's failure message says when a channel of
// the task broke, as the transport words it.
var channelMarks = []string{"channel from sender", "transport: channel broke"}

// peerNamed returns the task manager other than reporter, of those in
// attempt, that a task's failure message msg names as the peer of a
// broken channel, or "".
func peerNamed(msg, reporter string, attempt []string) string {
	broken := false
	for _, mark := range channelMarks {
		broken = broken || strings.Contains(msg, mark)
	}
	if !broken {
		return ""
	}
	const prefix = "task manager "
	for rest := msg; ; {
		i := strings.Index(rest, prefix)
		if i < 0 {
			return ""
		}
		rest = rest[i+len(prefix):]
		id := rest
		if end := strings.IndexAny(id, " :;,()"); end >= 0 {
			id = id[:end]
		}
		for _, tm := range attempt {
			if id == tm && id != reporter {
				return id
			}
		}
	}
}

// suspectPeer remembers a task's failure, just applied with failAttempt,
// whose message names a peer task manager of the attempt, so that the
// peer's loss soon after is blamed for it.
func (m *Machine) suspectPeer(j *Job, attemptTMs []string, reporter, task, msg, reason string) {
	peer := peerNamed(msg, reporter, attemptTMs)
	if peer == "" {
		j.suspect = nil
		return
	}
	if _, ok := m.tms[peer]; !ok {
		j.suspect = nil
		return
	}
	// NB: the failed attempt's cancel to the peer doubles as its check.
	for i, a := range m.acts {
		if c, ok := a.(CancelTasks); ok && c.TaskManager == peer {
			c.Check = true
			m.acts[i] = c
		}
	}
	j.suspect = &suspect{
		Peer:      peer,
		At:        m.now,
		Reason:    reason,
		Symptom:   fmt.Sprintf("task %s on %s saw its channel with it break: %s", task, reporter, msg),
		History:   j.HistoryDropped + len(j.History) - 1,
		Exception: j.Exceptions.Dropped + len(j.Exceptions.List) - 1,
	}
}

// blamePeer rewrites the failure a job suspects task manager tm of, now
// found lost for reason, if it is recent enough.
func (m *Machine) blamePeer(j *Job, tm, reason string) {
	s := j.suspect
	if s == nil || s.Peer != tm {
		return
	}
	j.suspect = nil
	// NB: a peer silent since just before the failure is found lost a
	// heartbeat timeout later, plus up to a tick: allow an interval more.
	if m.now.Sub(s.At) > m.cfg.HeartbeatTimeout+m.cfg.HeartbeatInterval {
		return
	}
	blamed := reason + "; " + s.Symptom
	if i := s.History - j.HistoryDropped; i >= 0 && i < len(j.History) {
		j.History[i].Message = strings.Replace(j.History[i].Message, s.Reason, blamed, 1)
	}
	if i := s.Exception - j.Exceptions.Dropped; i >= 0 && i < len(j.Exceptions.List) {
		j.Exceptions.List[i].Message = blamed
	}
	if msg := strings.Replace(j.Message, s.Reason, blamed, 1); msg != j.Message {
		j.Message = msg
		m.emit(JobState{Job: j.ID, State: j.State, Message: msg})
	}
	m.log.Info("failure blamed on the lost task manager", "job", j.ID, "tm", tm)
}
