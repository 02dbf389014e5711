package handle

import "github.com/alertd/alertd/protocol"

// FollowDiff compares two complete following lists: the accounts added and
// the accounts removed (as they were last seen), each in list order, and the
// accounts still followed under a new handle. Handles keep the platform's
// spelling; they are compared by key.
func FollowDiff(prev map[string]protocol.FollowUser, prevOrder []string, cur []protocol.FollowUser) (added, removed, renamed []protocol.FollowUser) {
	seen := make(map[string]struct{}, len(cur))
	for _, u := range cur {
		_, again := seen[u.ID]
		seen[u.ID] = struct{}{}
		p, ok := prev[u.ID]
		switch {
		case !ok:
			added = append(added, u)
		case protocol.NormalizeHandle(p.Handle) != protocol.NormalizeHandle(u.Handle) && !again: // a change of case alone is no rename
			renamed = append(renamed, u)
		}
	}
	for _, id := range prevOrder {
		if _, ok := seen[id]; !ok {
			removed = append(removed, prev[id])
		}
	}
	return added, removed, renamed
}

// postState is what a handle actor remembers of a post it has published.
type postState struct {
	firstSeen  int64 // ms
	hasContext bool  // a reply or quote carried its parent
	textLen    int
	hasOCR     bool
	loaded     bool // from the store, not yet observed by this process
}

func statePost(t *protocol.Tweet, at int64) postState {
	return postState{firstSeen: at, hasContext: hasContext(t), textLen: len(t.Text), hasOCR: t.OCRText != nil && *t.OCRText != ""}
}

// hasContext reports whether a reply or quote carries its parent's body.
func hasContext(t *protocol.Tweet) bool {
	switch t.Type {
	case protocol.PostTypeReply, protocol.PostTypeQuote:
		return t.QuotedTweet != nil
	}
	return true
}

// UpdateReason says why a re-observed post deserves a social.post.update
// (spec 2, delivery rule 5): it first shipped without its reply or quote
// context, it first shipped truncated, or OCR text was recovered later.
type UpdateReason uint8

const (
	UpdateNone    UpdateReason = 0
	UpdateContext UpdateReason = 1 << 0
	UpdateText    UpdateReason = 1 << 1
	UpdateOCR     UpdateReason = 1 << 2
)

// updateReason compares a re-observation with what was published.
func updateReason(prev postState, t *protocol.Tweet) UpdateReason {
	var r UpdateReason
	if !prev.hasContext && hasContext(t) {
		r |= UpdateContext
	}
	if len(t.Text) > prev.textLen {
		r |= UpdateText
	}
	if !prev.hasOCR && t.OCRText != nil && *t.OCRText != "" {
		r |= UpdateOCR
	}
	return r
}
