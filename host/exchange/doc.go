// Package exchange moves record batches between the stages of a job.
//
// Each subtask of a stage that receives input has one Receiver; every
// subtask of every stage it reads has a Sender to it (one channel each,
// numbered by the plan), and a subtask that fans out has one Router per
// output edge. The transport package
// implements both, bounded by credits: a sender blocks while the receiver's
// buffer for it is full, so a slow consumer back-pressures its producers all
// the way to the sources with bounded memory. The last message every sender
// sends is End; the receiver's stream ends when all senders have ended.
//
// A Router sits at the end of a sending task: it splits each output batch by
// partitioning (hash by key group, or round-robin) into one pending batch per
// target and ships a pending batch when it is full or when the task flushes.
//
// Batches are recycled through a pool: a receiver that is done with a batch
// puts it back, and the sender's next batch reuses its memory.
package exchange
