package tweetalerts

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/alertd/alertd/actors/product/tweetalerts"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/actors/state/targets"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// maxHandlesPerAdd is spec 1's limit of handles per POST /v1/accounts.
const maxHandlesPerAdd = 25

// trackedAccountView is spec 1's "Tracked account".
type trackedAccountView struct {
	Handle         string   `json:"handle"`
	IsActive       bool     `json:"is_active"`
	Keywords       []string `json:"keywords"`
	Muted          bool     `json:"muted"`
	ExcludeReplies bool     `json:"exclude_replies"`
	ExcludeReposts bool     `json:"exclude_reposts"`
	ExcludeQuotes  bool     `json:"exclude_quotes"`
	AddedAt        int64    `json:"added_at"`
}

// trackedDetailView adds the profile (null when the directory does not
// know the handle).
type trackedDetailView struct {
	trackedAccountView
	Profile *profileView `json:"profile"`
}

type profileView struct {
	DisplayName string `json:"display_name"`
	Followers   int64  `json:"followers"`
	IsVerified  bool   `json:"is_verified"`
	ProfilePic  string `json:"profile_pic"`
}

// listEntry is one handle of the caller's list: the Tweet Alerts list for an
// xg_ key, the B2B target list for a dt_ key.
type listEntry struct {
	handle  string
	addedAt time.Time
	active  bool
}

// trackedLimit is the caller's handle ceiling.
func trackedLimit(p *account.Principal) int {
	if p.Product == protocol.ProductB2B {
		return p.Sub.MaxHandles
	}
	if plan, ok := protocol.FindTweetAlertsPlan(p.Sub.Plan); ok {
		return plan.Accounts
	}
	return 0
}

// trackedList returns the caller's list, oldest first. On Tweet Alerts a
// handle is active while it ranks within the plan (after a downgrade the
// newest are not) and its user is not suspended.
func (a *api) trackedList(p *account.Principal) []listEntry {
	if p.Product == protocol.ProductB2B {
		list := a.d.Targets.List(p.AccountID)
		out := make([]listEntry, len(list))
		for i, t := range list {
			out[i] = listEntry{handle: t.Handle, addedAt: t.CreatedAt, active: t.IsActive}
		}
		return out
	}
	list := a.d.Registry.Tracked(p.AccountID)
	limit := trackedLimit(p)
	out := make([]listEntry, len(list))
	for i, t := range list {
		out[i] = listEntry{handle: t.Handle, addedAt: t.AddedAt, active: i < limit && !a.suspended(t.Handle)}
	}
	return out
}

func (a *api) suspended(handle string) bool {
	e, ok := a.d.Dir.ByHandle(handle)
	return ok && e.User.Suspended
}

// findTracked returns the caller's entry for handle.
func (a *api) findTracked(p *account.Principal, handle string) (listEntry, bool) {
	for _, t := range a.trackedList(p) {
		if t.handle == handle {
			return t, true
		}
	}
	return listEntry{}, false
}

func (a *api) accountView(p *account.Principal, t listEntry) trackedAccountView {
	pr := a.d.Registry.Prefs(p.AccountID, t.handle)
	kw := pr.Keywords
	if kw == nil {
		kw = []string{}
	}
	return trackedAccountView{Handle: t.handle, IsActive: t.active, Keywords: kw, Muted: pr.Muted,
		ExcludeReplies: pr.ExcludeReplies, ExcludeReposts: pr.ExcludeReposts, ExcludeQuotes: pr.ExcludeQuotes,
		AddedAt: t.addedAt.UnixMilli()}
}

type accountListView struct {
	Accounts []trackedAccountView `json:"accounts"`
	Count    int                  `json:"count"`
	Limit    int                  `json:"limit"`
}

// listAccounts is GET /v1/accounts.
func (a *api) listAccounts(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	list := a.trackedList(p)
	v := accountListView{Accounts: make([]trackedAccountView, 0, len(list)), Count: len(list), Limit: trackedLimit(p)}
	for _, t := range list {
		v.Accounts = append(v.Accounts, a.accountView(p, t))
	}
	return 200, v, nil
}

// pathHandle is the {handle} path value, normalized; "" when not a handle.
func pathHandle(ctx *fasthttp.RequestCtx) string {
	h := protocol.NormalizeHandle(httpkit.PathValue(ctx, "handle"))
	if !protocol.ValidHandle(h) {
		return ""
	}
	return h
}

var errNotTracked = protocol.NotFound("handle is not on your tracked list")

// accountDetail is GET /v1/accounts/{handle}.
func (a *api) accountDetail(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	t, ok := a.findTracked(p, pathHandle(ctx))
	if !ok {
		return 0, nil, errNotTracked
	}
	v := trackedDetailView{trackedAccountView: a.accountView(p, t)}
	if e, ok := a.d.Dir.ByHandle(t.handle); ok {
		u := e.User
		v.Profile = &profileView{DisplayName: u.Name, Followers: u.Followers, IsVerified: u.Verified, ProfilePic: u.Avatar}
	}
	return 200, v, nil
}

type addAccountsView struct {
	Added         []string `json:"added"`
	AlreadyExists []string `json:"already_exists"`
	Total         int      `json:"total"`
	Limit         int      `json:"limit"`
}

// decodeHandles reads a required member that must be an array of handles:
// each is normalized (lowercase, no @); duplicates are dropped.
func decodeHandles(m map[string]json.RawMessage, name string, maxN int) ([]string, error) {
	raw, ok := m[name]
	if !ok {
		return nil, httpkit.MissingField(name)
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil || items == nil {
		return nil, protocol.BadRequest(name + " must be an array of handles")
	}
	if len(items) == 0 {
		return nil, protocol.BadRequest(name + " must not be empty")
	}
	if len(items) > maxN {
		return nil, protocol.BadRequest(fmt.Sprintf("at most %d handles per request", maxN))
	}
	return normalizeHandles(items, name)
}

func normalizeHandles(items []json.RawMessage, name string) ([]string, error) {
	var out, bad []string
	seen := map[string]bool{}
	for _, it := range items {
		var h string
		if json.Unmarshal(it, &h) != nil {
			bad = append(bad, string(it))
			continue
		}
		n := protocol.NormalizeHandle(h)
		if !protocol.ValidHandle(n) {
			bad = append(bad, h)
			continue
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	if len(bad) > 0 {
		return nil, protocol.BadRequest(fmt.Sprintf("invalid handles in %s: %s", name, strings.Join(bad, ", "))).
			WithHint("handles are 1 to 50 letters, digits or underscores, with an optional leading @")
	}
	return out, nil
}

func planFull(n, limit int) *protocol.APIError {
	return protocol.Forbidden(fmt.Sprintf("your plan's tracked-account limit is reached (%d/%d)", n, limit)).
		WithHint("remove an account with DELETE /v1/accounts/{handle}, or upgrade your plan")
}

// addAccounts is POST /v1/accounts (spec 1 rules: unknown, suspended and
// over-the-limit handles are skipped silently; a full plan is 403).
func (a *api) addAccounts(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	m, perr := httpkit.Fields(ctx)
	if perr != nil {
		return 0, nil, perr
	}
	handles, err := decodeHandles(m, "handles", maxHandlesPerAdd)
	if err != nil {
		return 0, nil, err
	}
	limit := trackedLimit(p)
	eligible := func(h string) bool {
		e, ok := a.d.Dir.ByHandle(h)
		return ok && !e.User.Suspended
	}
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	if p.Product == protocol.ProductB2B {
		return a.addTargets(cctx, p, handles, limit, eligible)
	}
	added, existing, total, err := a.d.Registry.Track(cctx, p.AccountID, handles, limit, eligible)
	if errors.Is(err, tweetalerts.ErrPlanFull) {
		return 0, nil, planFull(total, limit)
	}
	if err != nil {
		return 0, nil, err
	}
	return 201, addAccountsView{Added: added, AlreadyExists: existing, Total: total, Limit: limit}, nil
}

// addTargets applies POST /v1/accounts to the B2B target list of a dt_ key.
func (a *api) addTargets(ctx context.Context, p *account.Principal, handles []string, limit int, eligible func(string) bool) (int, any, error) {
	reg := a.d.Targets
	v := addAccountsView{Added: []string{}, AlreadyExists: []string{}, Limit: limit}
	for _, h := range handles {
		if t, ok := reg.Get(p.AccountID, h); ok && t.IsActive {
			v.AlreadyExists = append(v.AlreadyExists, h)
		}
	}
	if _, active := reg.Counts(p.AccountID); active >= limit {
		return 0, nil, planFull(active, limit)
	}
	for _, h := range handles {
		if t, ok := reg.Get(p.AccountID, h); (ok && t.IsActive) || !eligible(h) {
			continue
		}
		e, _ := a.d.Dir.ByHandle(h)
		id := e.User.ID
		_, err := reg.Add(ctx, p.AccountID, h, e.User.Name, &id, limit)
		switch {
		case errors.Is(err, targets.ErrLimit):
		case errors.Is(err, targets.ErrExists):
		case err != nil:
			return 0, nil, err
		default:
			v.Added = append(v.Added, h)
		}
	}
	_, v.Total = reg.Counts(p.AccountID)
	return 201, v, nil
}

type removedView struct {
	Removed string `json:"removed"`
	Total   int    `json:"total"`
	Limit   int    `json:"limit"`
}

// removeAccount is DELETE /v1/accounts/{handle}: keywords stay for a later
// re-add; mute and filters are cleared.
func (a *api) removeAccount(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	h := pathHandle(ctx)
	if h == "" {
		return 0, nil, errNotTracked
	}
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	reg := a.d.Registry
	total := 0
	if p.Product == protocol.ProductB2B {
		err := a.d.Targets.Remove(cctx, p.AccountID, h)
		if errors.Is(err, targets.ErrNotTracked) {
			return 0, nil, errNotTracked
		}
		if err != nil {
			return 0, nil, err
		}
		pr := reg.Prefs(p.AccountID, h)
		if pr.Muted || pr.ExcludeReplies || pr.ExcludeReposts || pr.ExcludeQuotes {
			if _, err := reg.UpdatePrefs(cctx, p.AccountID, h, func(x *persistence.HandlePrefs) {
				x.Muted, x.ExcludeReplies, x.ExcludeReposts, x.ExcludeQuotes = false, false, false, false
			}); err != nil {
				return 0, nil, err
			}
		}
		_, total = a.d.Targets.Counts(p.AccountID)
	} else {
		n, err := reg.Untrack(cctx, p.AccountID, h)
		if errors.Is(err, tweetalerts.ErrNotTracked) {
			return 0, nil, errNotTracked
		}
		if err != nil {
			return 0, nil, err
		}
		total = n
	}
	return 200, removedView{Removed: h, Total: total, Limit: trackedLimit(p)}, nil
}
