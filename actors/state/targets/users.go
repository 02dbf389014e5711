package targets

import "github.com/alertd/alertd/persistence"

// Resolve hears that the platform user socialID has handle now (a user
// observation, not suspended). It fills in the user id and display name of
// the targets of handle that wait for one, and moves to handle the targets
// tied to socialID that are elsewhere (a rename the store lost in a crash;
// see the package doc). It changes memory at once and leaves the writing to
// the committer: it never waits for the store. Unless there is something to
// do it costs two map lookups under the read lock.
func (r *Registry) Resolve(handle, socialID, displayName string) {
	r.mu.RLock()
	tied, known := r.tied[socialID]
	need := r.unresolved[handle] > 0 || (known && tied != handle)
	r.mu.RUnlock()
	if !need {
		return
	}
	r.mu.Lock()
	if r.unresolved[handle] > 0 {
		for _, e := range r.at[handle] {
			if e.t.SocialUserID != nil {
				continue
			}
			r.setUser(e, socialID, displayName)
			r.markLocked(e.key())
		}
	}
	r.gather(socialID, handle)
	r.mu.Unlock()
	r.poke()
}

// Rename hears that the platform user socialID renamed from one handle to
// another. Its targets move to the new handle, so that sessions opened after
// the rename follow it (open sessions were moved by the fan-out hub);
// targets of the old handle waiting for a user id move too and take
// socialID. Targets of the old handle tied to another user stay. An account
// already tracking the new handle keeps that target and drops the old one.
// Like Resolve, it changes memory at once and never waits for the store.
func (r *Registry) Rename(from, to, socialID string) {
	if from == to {
		return
	}
	r.mu.Lock()
	var moving []*entry
	for _, e := range r.at[from] {
		if e.t.SocialUserID == nil || *e.t.SocialUserID == socialID {
			moving = append(moving, e)
		}
	}
	for _, e := range moving {
		r.move(e, to, socialID)
	}
	if _, ok := r.tied[socialID]; !ok && len(moving) > 0 {
		r.tied[socialID] = to
	}
	r.gather(socialID, to) // targets of socialID left at a third handle
	r.mu.Unlock()
	r.poke()
}

// gather moves every target tied to socialID to handle, if tied says some
// are elsewhere.
func (r *Registry) gather(socialID, handle string) {
	cur, ok := r.tied[socialID]
	if !ok || cur == handle {
		return
	}
	var moving []*entry
	if cur == scatter {
		for h, m := range r.at {
			if h == handle {
				continue
			}
			for _, e := range m {
				if id := e.t.SocialUserID; id != nil && *id == socialID {
					moving = append(moving, e)
				}
			}
		}
	} else {
		for _, e := range r.at[cur] {
			if id := e.t.SocialUserID; id != nil && *id == socialID {
				moving = append(moving, e)
			}
		}
	}
	for _, e := range moving {
		r.move(e, handle, socialID)
	}
	r.tied[socialID] = handle
}

// move puts e at handle to with user id socialID, or drops it if its
// account has a target there already. Both keys are marked together, so the
// committer writes them in one transaction.
func (r *Registry) move(e *entry, to, socialID string) {
	from := e.key()
	if other := r.lookup(e.t.AccountID, to); other != nil && other != e {
		r.drop(e)
		r.markLocked(from)
		return
	}
	r.unindex(e)
	id := socialID
	e.t.Handle, e.t.SocialUserID = to, &id
	e.t.ScreenName = "" // the customer's spelling named the old handle
	r.index(e)
	r.markLocked(from)
	r.markLocked(e.key())
}

// drop takes e out of memory because a rename folded it into another target
// of its account. An Add in flight on it is answered ErrExists (the user is
// tracked, under the new handle); a Remove in flight is done.
func (r *Registry) drop(e *entry) {
	r.detach(e)
	if p := e.op; p != nil {
		e.op = nil
		if !p.remove {
			p.err = ErrExists
		}
		p.saved = persistence.Target{}
		close(p.done)
	}
}
