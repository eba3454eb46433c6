package api

import "context"

// ClusterStatus is the scheduler group as the scheduler that answers sees
// it (GET /v1/cluster).
type ClusterStatus struct {
	// Leader is the leading member's ID, or "" while none is known.
	Leader string `json:"leader"`
	// Term is the current Raft term; it grows with every election.
	Term uint64 `json:"term"`
	// Members are the group's members, sorted by ID. A single scheduler is
	// a group of one.
	Members []ClusterMember `json:"members"`
}

// ClusterMember is one scheduler of the group.
type ClusterMember struct {
	// ID is the member's Raft id, its Raft address in a group.
	ID string `json:"id"`
	// RaftAddr is the address the members replicate the log on.
	RaftAddr string `json:"raftAddr"`
	// RESTAddr is the member's REST API, or "" when the answering
	// scheduler does not know it.
	RESTAddr string `json:"restAddr"`
	// RPCAddr is where the member serves task managers, or "" when the
	// answering scheduler does not know it.
	RPCAddr string `json:"rpcAddr,omitempty"`
	// Leader is true for the leading member.
	Leader bool `json:"leader"`
	// Applied is the index of the last log entry the member has applied to
	// its state; 0 when it is not Reachable.
	Applied uint64 `json:"applied"`
	// Reachable says whether the answering scheduler could ask the member
	// for its applied index.
	Reachable bool `json:"reachable"`
}

// ClusterService is implemented by a scheduler that reports its group:
// the REST API serves GET /v1/cluster when its Service implements it.
type ClusterService interface {
	// Cluster returns the group as this scheduler sees it: each member's
	// Applied is asked of the member itself (Self, over REST).
	Cluster(ctx context.Context) (ClusterStatus, error)
	// Self returns this scheduler alone, with its own applied index
	// (GET /v1/cluster/self).
	Self(ctx context.Context) (ClusterMember, error)
	// Join journals a member's addresses (m.ID, m.RESTAddr, m.RPCAddr), so
	// that every member knows where the others serve REST
	// (PUT /v1/cluster/members/{id}). It fails with ErrBadRequest for an
	// id that is not a member of the group, and ErrUnavailable on a
	// scheduler that does not lead.
	Join(ctx context.Context, m ClusterMember) error
}
