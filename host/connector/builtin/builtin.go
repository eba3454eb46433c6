// Package builtin links Floe's built-in connectors into a program: importing
// it, for its side effects only, registers the source and sink types file,
// generator, kafka, nexmark and stdout with the job spec parser
// (internal/jobspec), which then accepts them in specs, and makes their
// specs openable by the task runtime (host/connector.OpenSource).
//
// Every program that parses job specs imports it: the floe command, the
// scheduler, the task manager and the mini-cluster. A new connector adds
// one line here.
package builtin

import (
	_ "github.com/floe-stream/floe/host/connector/file"      // file source and sink
	_ "github.com/floe-stream/floe/host/connector/generator" // generator source
	_ "github.com/floe-stream/floe/host/connector/kafka"     // kafka source and sink
	_ "github.com/floe-stream/floe/host/connector/nexmark"   // nexmark source
	_ "github.com/floe-stream/floe/host/connector/stdout"    // stdout sink
)
