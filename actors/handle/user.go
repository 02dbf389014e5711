package handle

import (
	"time"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/actors/kit"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
)

// userActor owns the profile snapshots of one platform user id, so that a
// rename is seen in order: the snapshot under the old handle, then the one
// under the new.
type userActor struct {
	entity
	id string
	d  *Deps
}

func newUserActor(id string, d *Deps, e entity) *userActor {
	return &userActor{entity: e, id: id, d: d}
}

func (a *userActor) Receive(c actor.Context) {
	defer kit.CapturePanic()
	if lc, _ := a.lifecycle(c); lc {
		return
	}
	defer a.release()
	switch m := c.Message().(type) {
	case *Observe:
		defer a.observed(m.Obs)
		a.observe(m.Obs)
	default:
		a.d.Log.Warn("user actor: unexpected message", "id", a.id, "type", typeName(m))
	}
}

func (a *userActor) observe(o *protocol.Observation) {
	if o.Kind != protocol.KindUser {
		a.d.Log.Warn("user actor: observation of another kind", "id", a.id, "kind", o.Kind)
		return
	}
	u := o.User
	at := time.UnixMilli(o.DetectedAt).UTC()
	var old *protocol.UserObs
	if prev := a.d.Dir.Put(u, at); prev != nil {
		old = prev.User
	}
	c := &ProfileChanged{UserID: u.ID, Old: old, New: u, Changes: protocol.ProfileChanges(old, u), At: o.DetectedAt}
	from, renamed := c.Renamed()
	if renamed && a.d.Hub != nil {
		a.d.Hub.Rename(from, u.Handle) // before the events, which go out under the new handle
		if a.d.Recent != nil {
			a.d.Recent.Rename(from, u.Handle)
		}
	}
	a.deriveProfile(u, c.Changes, o.DetectedAt, o.IngestedAt)
	a.d.Writer.User(persistence.User{ID: u.ID, Handle: u.Handle, Suspended: u.Suspended,
		Categories: u.Categories, Snapshot: o.Raw, UpdatedAt: at})
	if a.d.Resolver != nil && !u.Suspended {
		if rn, ok := a.d.Resolver.(TargetRenamer); ok && renamed {
			rn.Rename(from, u.Handle, u.ID)
		}
		a.d.Resolver.Resolve(u.Handle, u.ID, u.Name)
	}
	if renamed {
		// The old handle's actor hands its state to the new handle's.
		a.r.Tell(from, KindHandle, &RenamedTo{Handle: u.Handle})
	}
	if a.d.Subs != nil {
		publish(a.d.Subs.ProfileChanged, c)
	}
}

// publishHandle publishes e on handle's topic: on this node's hub, or in a
// cluster through the handle's grain, so that every node's sessions of the
// handle hear it, in order with the handle's own events.
func (a *userActor) publishHandle(handle string, e *delivery.Event) {
	if a.r.place != nil {
		e.Encode()
		a.r.place.Tell(handle, &Publish{Event: e})
		return
	}
	a.d.Hub.Publish(delivery.HandleTopic(handle), e)
}

// TargetRenamer is implemented by a Resolver that also moves the targets of
// a renamed account to its new handle (targets.Registry); it only tells.
type TargetRenamer interface {
	Rename(from, to, socialID string)
}

// deriveProfile publishes one social.profile.update per changed field, under
// the current handle; subscribers of a renamed handle follow it to the new one.
func (a *userActor) deriveProfile(cur *protocol.UserObs, changes []protocol.ProfileChange, at, ingestedAt int64) {
	if len(changes) == 0 || a.d.Hub == nil {
		return
	}
	cats := a.d.Dir.Categories(cur.Handle)
	id := protocol.EventID(protocol.EventKindProfileUpdate, cur.Handle, at)
	for _, c := range changes {
		e := &delivery.Event{
			Meta:      protocol.ProfileMeta(c, cats),
			Header:    protocol.EventHeader{Kind: protocol.EventKindProfileUpdate, EventID: id, EventTime: at, Handle: cur.Handle},
			Data:      protocol.AppendProfileData(nil, c),
			CreatedAt: at, DetectedAt: at, IngestedAt: ingestedAt,
		}
		a.publishHandle(cur.Handle, e)
		if a.d.Trace != nil {
			a.d.Trace.Trace(cur.Handle, e)
		}
	}
}
