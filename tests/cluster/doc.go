// Package cluster holds end-to-end tests of Floe's distributed runtime: a
// scheduler and several task managers, each a separate process of the real
// floe binary on loopback, driven through the floe job commands and the
// REST API as a user would drive them.
//
// The binary and the operator modules are built from source once, in
// TestMain. Each test starts its own cluster (fresh ports, a data directory
// per process, short heartbeats so that a lost task manager is noticed in
// seconds) and stops every process it started when it ends. The tests check
// what the jobs write against answers they compute themselves
// (tests/textgen), and what the scheduler reports against what the cluster
// is known to be doing:
//
//   - a word count spread over two task managers gives the right counts;
//   - a task manager killed with SIGKILL mid-job makes the job restart on the
//     survivors and still give the right counts;
//   - a slow operator behind an unbounded source throttles the source
//     through the exchange's credits instead of buffering, so every
//     process's memory stays flat;
//   - bad requests get the right status code and a clear message, and the
//     cluster keeps serving;
//   - a job that needs more slots than exist waits until a task manager
//     brings them;
//   - Nexmark q5's windows and timers survive a SIGKILLed task manager: the
//     output equals the brute-force result (tests/nexmark);
//   - Nexmark q9's join of auctions and bids from two sources (a coProcess
//     with keyed state and event-time timers) survives a SIGKILLed task
//     manager: each auction's winning bid is committed once;
//   - Kafka (an in-process kfake cluster) to word count to Kafka stays exactly
//     once across two SIGKILLs, across rescales 2 → 3 → 1, and while the
//     broker goes away and comes back.
package cluster
