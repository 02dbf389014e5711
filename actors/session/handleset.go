package session

import (
	"slices"

	"github.com/alertd/alertd/actors/delivery"
)

// handleSet is the set of handles a session is subscribed to: a sorted
// slice, a third of the memory of a map at a hundred handles, which matters
// at tens of thousands of idle sessions. Not safe for concurrent use: the
// session guards it. Until fill it is closed: nothing can be added.
type handleSet struct {
	hs   []string
	open bool
}

// fill opens the set with list (duplicates dropped) and returns its handles.
func (s *handleSet) fill(list []string) []string {
	// Sized to the list, not grown by appends: it lives as long as the
	// session, and a hundred handles would sit in room for 128.
	hs := append(make([]string, 0, len(list)), list...)
	slices.Sort(hs)
	s.hs = slices.Compact(hs)
	s.open = true
	return s.hs
}

// add adds h to an open set; it reports whether h is new.
func (s *handleSet) add(h string) bool {
	if !s.open {
		return false
	}
	i, found := slices.BinarySearch(s.hs, h)
	if found {
		return false
	}
	s.hs = slices.Insert(s.hs, i, h)
	return true
}

// remove drops h; it reports whether h was there.
func (s *handleSet) remove(h string) bool {
	i, found := slices.BinarySearch(s.hs, h)
	if !found {
		return false
	}
	s.hs = slices.Delete(s.hs, i, i+1)
	return true
}

// close empties and closes the set, returning what it held.
func (s *handleSet) close() []string {
	hs := s.hs
	s.hs, s.open = nil, false
	return hs
}

// The methods below keep a session's hub subscriptions in step with its set;
// the session calls them under the lock that guards the set.

// subscribeAll opens the set with list and subscribes sub to each handle.
func (s *handleSet) subscribeAll(hub *delivery.Hub, sub delivery.Subscriber, list []string) {
	for _, h := range s.fill(list) {
		hub.Subscribe(delivery.HandleTopic(h), sub)
	}
}

// watch subscribes sub to h unless it already is (or the set is closed).
func (s *handleSet) watch(hub *delivery.Hub, sub delivery.Subscriber, h string) {
	if s.add(h) {
		hub.Subscribe(delivery.HandleTopic(h), sub)
	}
}

// unwatch unsubscribes sub from h if it was subscribed.
func (s *handleSet) unwatch(hub *delivery.Hub, sub delivery.Subscriber, h string) {
	if s.remove(h) {
		hub.Unsubscribe(delivery.HandleTopic(h), sub)
	}
}

// renamed records that the hub subscribed sub to to (delivery.Renamer), or
// undoes it when the set was closed meanwhile.
func (s *handleSet) renamed(hub *delivery.Hub, sub delivery.Subscriber, to string) {
	if !s.open {
		hub.Unsubscribe(delivery.HandleTopic(to), sub)
		return
	}
	s.add(to)
}

// unsubscribeAll closes the set and unsubscribes sub from every handle.
func (s *handleSet) unsubscribeAll(hub *delivery.Hub, sub delivery.Subscriber) {
	for _, h := range s.close() {
		hub.Unsubscribe(delivery.HandleTopic(h), sub)
	}
}
