// Package auth is who may call the scheduler's REST API: users, their
// bearer tokens and their roles.
//
// A user is a name with a Role. Roles are ordered: a viewer reads (jobs,
// checkpoints, task managers, the scheduler group, and the queryable states
// a job opens to viewers), an operator also changes jobs (submit, cancel,
// rescale, savepoint, stop) and reads any queryable state, and an admin
// also changes the scheduler group (PUT /v1/cluster/members/{id}).
//
// A token file (Parse, Load) holds one line per user: name, role and the
// SHA-256 of the user's token, never the token itself. A token is 256
// random bits (NewToken), so a plain hash is as good as a slow one: there
// is nothing to guess. Tokens.Authenticate hashes the token it is given
// and compares it with every entry in constant time. Append adds a user to
// a file, creating it readable by its owner alone; `floe token create`
// calls it and prints the token once.
//
// The package decides nothing about HTTP: the REST handler reads the
// Authorization header and asks Authenticate and Role.Allows.
package auth
