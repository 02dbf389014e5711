package casearch

import "github.com/alertd/alertd/actors/state/directory"

// DirectoryPeople reads authors and mentioned accounts from the user
// directory.
type DirectoryPeople struct{ Dir *directory.Directory }

// Location is the user's location, when the directory knows the user.
func (p DirectoryPeople) Location(userID string) (*string, bool) {
	e, ok := p.Dir.ByID(userID)
	if !ok || e.User.Location == nil || *e.User.Location == "" {
		return nil, false
	}
	return e.User.Location, true
}

// Mentioned is the id and name of the account holding handle (lowercase).
func (p DirectoryPeople) Mentioned(handle string) (string, string, bool) {
	e, ok := p.Dir.ByHandle(handle)
	if !ok {
		return "", "", false
	}
	return e.User.ID, e.User.Name, true
}
