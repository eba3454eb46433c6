package auth

import "fmt"

// Role is what a user may do. Roles are ordered, each allowing everything
// the ones below it allow. The zero Role is no role at all: a route that
// declares none is a bug, and a user never has it.
type Role int

// The roles, lowest first.
const (
	// Anyone needs no token at all: /healthz.
	Anyone Role = iota + 1
	// Viewer reads jobs, checkpoints, task managers, the scheduler group
	// and the queryable states a job opens to viewers.
	Viewer
	// Operator also submits, cancels, rescales, savepoints and stops
	// jobs, and reads every queryable state.
	Operator
	// Admin also changes the scheduler group.
	Admin
)

// userRoles are the roles a user may have, by name.
var userRoles = map[string]Role{"viewer": Viewer, "operator": Operator, "admin": Admin}

// String returns the role's name as a token file spells it.
func (r Role) String() string {
	switch r {
	case Anyone:
		return "anyone"
	case Viewer:
		return "viewer"
	case Operator:
		return "operator"
	case Admin:
		return "admin"
	}
	return fmt.Sprintf("Role(%d)", int(r))
}

// Allows reports whether a user with role r may do what needs role need.
// Nothing allows the zero Role.
func (r Role) Allows(need Role) bool {
	return need != 0 && r >= need
}

// ParseRole returns the user role named s: viewer, operator or admin.
func ParseRole(s string) (Role, error) {
	if r, ok := userRoles[s]; ok {
		return r, nil
	}
	return 0, fmt.Errorf("unknown role %q: want viewer, operator or admin", s)
}
