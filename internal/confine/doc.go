// Package confine keeps a job to the local paths it is allowed: the
// directories an operator of a cluster names with --allowed-paths (the
// roots), inside which the files a job reads and the directories it writes
// (file sources and sinks, checkpoint storage, savepoints) must lie.
//
// Resolve turns a path as a spec or a request writes it into the one the
// operating system would open: absolute, with "." and ".." gone and every
// symbolic link followed, including one that dangles. A path whose tail
// does not exist yet, such as a sink directory the job will create, is
// resolved as far as it exists and the rest is joined on, which is what
// creating it will do. Roots.Check compares the resolved path with the
// resolved roots component by component, so /data2 is not inside /data
// and a link inside a root that points out of it leads out of it.
//
// The job side of the rule is in job.go: Job collects the local paths of a
// parsed job spec (its connectors report theirs through
// jobspec.LocalPather, and its checkpoint storage is a file:// URL) and
// Roots.CheckJob checks them all. The scheduler checks a job at submission
// and each task manager checks it again before it opens anything, each
// against its own roots (docs/security.md, "What a job may touch").
//
// NB: a check and the open that follows it are two steps: a user who can
// change the file system between them (replace a directory by a link) is
// not stopped. The check is against what the job names, not a sandbox.
package confine
