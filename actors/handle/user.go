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
		defer a.observed()
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
	defer a.d.Taps.fire(o)
	u := o.User
	at := time.UnixMilli(o.DetectedAt).UTC()
	prev := a.d.Dir.Put(u, at)
	if prev != nil {
		a.deriveProfile(prev.User, u, o.DetectedAt, o.IngestedAt)
	}
	a.d.Writer.User(persistence.User{ID: u.ID, Handle: u.Handle, Suspended: u.Suspended,
		Categories: u.Categories, Snapshot: o.Raw, UpdatedAt: at})
	if a.d.Resolver != nil && !u.Suspended {
		if rn, ok := a.d.Resolver.(TargetRenamer); ok && prev != nil && prev.User.Handle != u.Handle {
			rn.Rename(prev.User.Handle, u.Handle, u.ID)
		}
		a.d.Resolver.Resolve(u.Handle, u.ID, u.Name)
	}
}

// TargetRenamer is implemented by a Resolver that also moves the targets of
// a renamed account to its new handle (targets.Registry); it only tells.
type TargetRenamer interface {
	Rename(from, to, socialID string)
}

// deriveProfile publishes one social.profile.update per changed field, under
// the current handle; subscribers of a renamed handle follow it to the new one.
func (a *userActor) deriveProfile(prev, cur *protocol.UserObs, at, ingestedAt int64) {
	changes := protocol.ProfileChanges(prev, cur)
	if len(changes) == 0 || a.d.Hub == nil {
		return
	}
	if prev.Handle != cur.Handle {
		a.d.Hub.Rename(prev.Handle, cur.Handle)
		if a.d.Recent != nil {
			a.d.Recent.Rename(prev.Handle, cur.Handle)
		}
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
		a.d.Hub.Publish(delivery.HandleTopic(cur.Handle), e)
		if a.d.Trace != nil {
			a.d.Trace.Trace(cur.Handle, e)
		}
	}
}
