// Package stdout holds a sink that writes each record's value as a line to a
// Writer shared by all subtasks, os.Stdout by default.
//
// Each subtask's sink buffers whole batches in memory of its own and hands
// the buffer to the shared Writer in a single call once it passes
// BufferSize, on Flush and on Close, and every FlushInterval from a goroutine
// of its own, so that the tail of an input that went idle is printed too.
// The Writer serializes those calls under a mutex, so lines of different
// subtasks never interleave mid-line: the output is a sequence of whole
// batches.
package stdout
