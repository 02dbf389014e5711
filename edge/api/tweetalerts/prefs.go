package tweetalerts

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// Keyword limits of spec 1.
const (
	maxKeywords   = 20
	maxKeywordLen = 50
)

// trackedHandle returns the {handle} of a route that needs it tracked.
func (a *api) trackedHandle(ctx *fasthttp.RequestCtx, p *account.Principal) (string, error) {
	h := pathHandle(ctx)
	if _, ok := a.findTracked(p, h); !ok || h == "" {
		return "", errNotTracked
	}
	return h, nil
}

type keywordsView struct {
	Handle   string   `json:"handle"`
	Keywords []string `json:"keywords"`
}

// decodeKeywords reads `keywords`: an array of at most 20 strings of 1 to 50
// characters (trimmed); duplicates, ignoring case, are dropped.
func decodeKeywords(m map[string]json.RawMessage) ([]string, error) {
	raw, ok := m["keywords"]
	if !ok {
		return nil, httpkit.MissingField("keywords")
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil || list == nil {
		return nil, protocol.BadRequest("keywords must be an array of strings")
	}
	if len(list) > maxKeywords {
		return nil, protocol.BadRequest(fmt.Sprintf("at most %d keywords per account", maxKeywords))
	}
	out := make([]string, 0, len(list))
	seen := map[string]bool{}
	for _, it := range list {
		var k string
		if json.Unmarshal(it, &k) != nil {
			return nil, protocol.BadRequest("keywords must be an array of strings")
		}
		k = strings.TrimSpace(k)
		if k == "" || utf8.RuneCountInString(k) > maxKeywordLen {
			return nil, protocol.BadRequest(fmt.Sprintf("each keyword must be 1 to %d characters", maxKeywordLen))
		}
		if low := strings.ToLower(k); !seen[low] {
			seen[low] = true
			out = append(out, k)
		}
	}
	return out, nil
}

// putKeywords is PUT /v1/accounts/{handle}/keywords: replaces the list.
func (a *api) putKeywords(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	h, err := a.trackedHandle(ctx, p)
	if err != nil {
		return 0, nil, err
	}
	m, perr := httpkit.Fields(ctx)
	if perr != nil {
		return 0, nil, perr
	}
	kw, err := decodeKeywords(m)
	if err != nil {
		return 0, nil, err
	}
	return a.setKeywords(p, h, kw)
}

// clearKeywords is DELETE /v1/accounts/{handle}/keywords.
func (a *api) clearKeywords(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	h, err := a.trackedHandle(ctx, p)
	if err != nil {
		return 0, nil, err
	}
	return a.setKeywords(p, h, nil)
}

func (a *api) setKeywords(p *account.Principal, h string, kw []string) (int, any, error) {
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	pr, err := a.d.Registry.UpdatePrefs(cctx, p.AccountID, h, func(x *persistence.HandlePrefs) { x.Keywords = kw })
	if err != nil {
		return 0, nil, err
	}
	if pr.Keywords == nil {
		pr.Keywords = []string{}
	}
	return 200, keywordsView{Handle: h, Keywords: pr.Keywords}, nil
}

type muteView struct {
	Handle string `json:"handle"`
	Muted  bool   `json:"muted"`
}

// putMute is PUT /v1/accounts/{handle}/mute.
func (a *api) putMute(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	h, err := a.trackedHandle(ctx, p)
	if err != nil {
		return 0, nil, err
	}
	m, perr := httpkit.Fields(ctx)
	if perr != nil {
		return 0, nil, perr
	}
	raw, ok := m["muted"]
	if !ok {
		return 0, nil, httpkit.MissingField("muted")
	}
	var muted bool
	if httpkit.IsNull(raw) || json.Unmarshal(raw, &muted) != nil {
		return 0, nil, protocol.BadRequest("muted must be a boolean")
	}
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	if _, err := a.d.Registry.UpdatePrefs(cctx, p.AccountID, h, func(x *persistence.HandlePrefs) { x.Muted = muted }); err != nil {
		return 0, nil, err
	}
	return 200, muteView{Handle: h, Muted: muted}, nil
}

// optionalBools reads the optional boolean members names of m: absent or
// null is nil (unchanged); anything but a boolean is a 400.
func optionalBools(m map[string]json.RawMessage, names ...string) (map[string]*bool, error) {
	out := make(map[string]*bool, len(names))
	for _, n := range names {
		raw, ok := m[n]
		if !ok || httpkit.IsNull(raw) {
			out[n] = nil
			continue
		}
		var b bool
		if json.Unmarshal(raw, &b) != nil {
			return nil, protocol.BadRequest(n + " must be a boolean")
		}
		out[n] = &b
	}
	return out, nil
}

type filtersView struct {
	ExcludeReplies *bool `json:"exclude_replies"`
	ExcludeReposts *bool `json:"exclude_reposts"`
	ExcludeQuotes  *bool `json:"exclude_quotes"`
}

// patchFilters is PATCH /v1/accounts/{handle}/filters: it echoes the
// request, omitted fields as null (unchanged).
func (a *api) patchFilters(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	h, err := a.trackedHandle(ctx, p)
	if err != nil {
		return 0, nil, err
	}
	m, perr := httpkit.Fields(ctx)
	if perr != nil {
		return 0, nil, perr
	}
	b, err := optionalBools(m, "exclude_replies", "exclude_reposts", "exclude_quotes")
	if err != nil {
		return 0, nil, err
	}
	v := filtersView{ExcludeReplies: b["exclude_replies"], ExcludeReposts: b["exclude_reposts"], ExcludeQuotes: b["exclude_quotes"]}
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	_, err = a.d.Registry.UpdatePrefs(cctx, p.AccountID, h, func(x *persistence.HandlePrefs) {
		setIf(&x.ExcludeReplies, v.ExcludeReplies)
		setIf(&x.ExcludeReposts, v.ExcludeReposts)
		setIf(&x.ExcludeQuotes, v.ExcludeQuotes)
	})
	if err != nil {
		return 0, nil, err
	}
	return 200, v, nil
}

func setIf(dst *bool, v *bool) {
	if v != nil {
		*dst = *v
	}
}

// settingsView is spec 1's "Notification settings".
type settingsView struct {
	ExcludeReplies      bool `json:"exclude_replies"`
	ContractsOnly       bool `json:"contracts_only"`
	NotificationsPaused bool `json:"notifications_paused"`
	ExcludeReposts      bool `json:"exclude_reposts"`
	AutoTopics          bool `json:"auto_topics"`
	ContractTopic       bool `json:"contract_topic"`
}

func viewSettings(c persistence.TweetAlertsSettings) settingsView {
	return settingsView{ExcludeReplies: c.ExcludeReplies, ContractsOnly: c.ContractsOnly,
		NotificationsPaused: c.NotificationsPaused, ExcludeReposts: c.ExcludeReposts,
		AutoTopics: c.AutoTopics, ContractTopic: c.ContractTopic}
}

// getSettings is GET /v1/settings.
func (a *api) getSettings(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	return 200, viewSettings(a.d.Registry.Settings(p.AccountID)), nil
}

// patchSettings is PATCH /v1/settings: any subset of the booleans; the
// answer is the whole object after the change. Unknown members are ignored.
func (a *api) patchSettings(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	m, perr := httpkit.Fields(ctx)
	if perr != nil {
		return 0, nil, perr
	}
	names := []string{"exclude_replies", "contracts_only", "notifications_paused", "exclude_reposts", "auto_topics", "contract_topic"}
	for _, n := range names {
		if raw, ok := m[n]; ok && httpkit.IsNull(raw) {
			return 0, nil, protocol.BadRequest(n + " must be a boolean")
		}
	}
	b, err := optionalBools(m, names...)
	if err != nil {
		return 0, nil, err
	}
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	c, err := a.d.Registry.UpdateSettings(cctx, p.AccountID, func(c *persistence.TweetAlertsSettings) {
		setIf(&c.ExcludeReplies, b["exclude_replies"])
		setIf(&c.ContractsOnly, b["contracts_only"])
		setIf(&c.NotificationsPaused, b["notifications_paused"])
		setIf(&c.ExcludeReposts, b["exclude_reposts"])
		setIf(&c.AutoTopics, b["auto_topics"])
		setIf(&c.ContractTopic, b["contract_topic"])
	})
	if err != nil {
		return 0, nil, err
	}
	return 200, viewSettings(c), nil
}
