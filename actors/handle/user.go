package handle

import (
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
)

// userActor owns the profile snapshots of one platform user id, so that a
// rename is seen in order: the snapshot under the old handle, then the one
// under the new.
type userActor struct {
	id string
	d  *Deps
}

func newUserActor(id string, d *Deps) *userActor { return &userActor{id: id, d: d} }

func (a *userActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *Observe:
		a.observe(m.Obs)
	case *actor.Started, *actor.Stopping, *actor.Stopped, *actor.Restarting:
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
	a.d.Dir.Put(u, at)
	a.d.Writer.User(persistence.User{ID: u.ID, Handle: u.Handle, Suspended: u.Suspended,
		Categories: u.Categories, Snapshot: o.Raw, UpdatedAt: at})
}
