package session

import "slices"

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
	s.hs = slices.Compact(slices.Sorted(slices.Values(list)))
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
