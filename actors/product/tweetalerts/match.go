package tweetalerts

import (
	"strings"

	"github.com/alertd/alertd/persistence"
)

// hookFilter is a webhook's filters, prepared for matching.
type hookFilter struct {
	handles  map[string]bool // empty: every tracked account
	keywords []string        // lowercase; empty: no keyword filtering
}

func newHookFilter(w *persistence.Webhook) hookFilter {
	f := hookFilter{}
	if len(w.FilterHandles) > 0 {
		f.handles = make(map[string]bool, len(w.FilterHandles))
		for _, h := range w.FilterHandles {
			f.handles[h] = true
		}
	}
	for _, k := range w.FilterKeywords {
		if k = strings.ToLower(strings.TrimSpace(k)); k != "" {
			f.keywords = append(f.keywords, k)
		}
	}
	return f
}

// matches reports whether a post of a tracked handle with text goes to the
// webhook (spec 1 "Events" rule 5): the handle is in filter_handles (or it
// is empty) and the text contains any filter keyword, ignoring case (or
// there are none). lowerText is the text in lowercase.
func (f *hookFilter) matches(handle, lowerText string) bool {
	if f.handles != nil && !f.handles[handle] {
		return false
	}
	if len(f.keywords) == 0 {
		return true
	}
	for _, k := range f.keywords {
		if strings.Contains(lowerText, k) {
			return true
		}
	}
	return false
}

// MatchesWebhook reports whether a post of handle with text goes to w.
func MatchesWebhook(w *persistence.Webhook, handle, text string) bool {
	f := newHookFilter(w)
	return f.matches(handle, strings.ToLower(text))
}
