package handle

import (
	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/protocol"
)

// Observe hands one validated observation to the actor that owns it. Only
// Router.Route sends it: the router counts it in the ingest backlog until
// the actor has handled it.
type Observe struct {
	Obs *protocol.Observation
}

// RenamedTo tells the actor of a handle that its user now goes by Handle;
// the user actor sends it, through the router, when it sees the rename
// (exported: in a cluster it crosses to the handle's grain).
type RenamedTo struct {
	Handle string
}

// adopt hands the state of a renamed handle's actor to the actor of the new
// handle, which takes what it has not got yet.
type adopt struct {
	from  string
	state State
}

// Publish hands the actor of a handle an event of that handle built by
// another actor (a user actor's profile change), to publish where the
// handle's sessions hear it. Only a cluster sends it (the handle's grain's
// node fans the event out to every node); a single node publishes such
// events on the hub directly. The event is encoded (Event.Encode) before it
// is sent and read-only afterwards.
type Publish struct {
	Event *delivery.Event
}

// QueryMemberships asks a handle actor for its memberships; it answers
// *MembershipsView. Products ask it through the Lookup (Memberships).
type QueryMemberships struct{}

// MembershipsView is a handle's memberships as its actor holds them (shared:
// read-only). Known is false before its first list.
type MembershipsView struct {
	Memberships []Membership
	Known       bool
}
