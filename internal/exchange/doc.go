// Package exchange moves record batches between the stages of a job.
//
// Each subtask of a stage that receives input has one Inbox; every subtask
// of the stage before it sends into it. An Inbox is bounded: a sender blocks
// while it is full, so a slow consumer back-pressures its producers all the
// way to the sources, and the memory in flight stays at most the inbox
// capacity in batches. The last message every sender sends is End; the
// receiver's stream ends when all senders have ended.
//
// A Router sits at the end of a sending task: it splits each output batch by
// partitioning (hash by key group, or round-robin) into one pending batch per
// target and ships a pending batch when it is full or when the task flushes.
//
// Batches are recycled through a pool: a receiver that is done with a batch
// puts it back, and the sender's next batch reuses its memory.
package exchange
