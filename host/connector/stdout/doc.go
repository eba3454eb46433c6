// Package stdout holds a sink that writes each record's value as a line to a
// Writer shared by all subtasks, os.Stdout by default.
//
// Each subtask's sink buffers whole batches in memory of its own, without any
// lock, and hands the buffer to the shared Writer in a single call once it
// passes BufferSize, on Flush and on Close. The Writer serializes those calls
// under a mutex, so lines of different subtasks never interleave mid-line:
// the output is a sequence of whole batches.
package stdout
