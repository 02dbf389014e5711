package edge

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/alertd/alertd/actors/product/tweetalerts"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/actors/state/targets"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// maxHandlesPerAdd is spec 1's limit of handles per POST /v1/accounts.
const maxHandlesPerAdd = 25

// xgTrackedAccountView is spec 1's "Tracked account".
type xgTrackedAccountView struct {
	Handle         string   `json:"handle"`
	IsActive       bool     `json:"is_active"`
	Keywords       []string `json:"keywords"`
	Muted          bool     `json:"muted"`
	ExcludeReplies bool     `json:"exclude_replies"`
	ExcludeReposts bool     `json:"exclude_reposts"`
	ExcludeQuotes  bool     `json:"exclude_quotes"`
	AddedAt        int64    `json:"added_at"`
}

// xgTrackedDetailView adds the profile (null when the directory does not
// know the handle).
type xgTrackedDetailView struct {
	xgTrackedAccountView
	Profile *xgProfileView `json:"profile"`
}

type xgProfileView struct {
	DisplayName string `json:"display_name"`
	Followers   int64  `json:"followers"`
	IsVerified  bool   `json:"is_verified"`
	ProfilePic  string `json:"profile_pic"`
}

// xgTracked is one handle of the caller's list: the Tweet Alerts list for an
// xg_ key, the B2B target list for a dt_ key.
type xgTracked struct {
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
func (s *Server) trackedList(p *account.Principal) []xgTracked {
	if p.Product == protocol.ProductB2B {
		list := s.deps.Targets.List(p.AccountID)
		out := make([]xgTracked, len(list))
		for i, t := range list {
			out[i] = xgTracked{handle: t.Handle, addedAt: t.CreatedAt, active: t.IsActive}
		}
		return out
	}
	list := s.deps.Consumer.Registry.Tracked(p.AccountID)
	limit := trackedLimit(p)
	out := make([]xgTracked, len(list))
	for i, t := range list {
		out[i] = xgTracked{handle: t.Handle, addedAt: t.AddedAt, active: i < limit && !s.suspended(t.Handle)}
	}
	return out
}

func (s *Server) suspended(handle string) bool {
	e, ok := s.deps.Dir.ByHandle(handle)
	return ok && e.User.Suspended
}

// findTracked returns the caller's entry for handle.
func (s *Server) findTracked(p *account.Principal, handle string) (xgTracked, bool) {
	for _, t := range s.trackedList(p) {
		if t.handle == handle {
			return t, true
		}
	}
	return xgTracked{}, false
}

func (s *Server) accountView(p *account.Principal, t xgTracked) xgTrackedAccountView {
	pr := s.deps.Consumer.Registry.Prefs(p.AccountID, t.handle)
	kw := pr.Keywords
	if kw == nil {
		kw = []string{}
	}
	return xgTrackedAccountView{Handle: t.handle, IsActive: t.active, Keywords: kw, Muted: pr.Muted,
		ExcludeReplies: pr.ExcludeReplies, ExcludeReposts: pr.ExcludeReposts, ExcludeQuotes: pr.ExcludeQuotes,
		AddedAt: t.addedAt.UnixMilli()}
}

type xgAccountListView struct {
	Accounts []xgTrackedAccountView `json:"accounts"`
	Count    int                    `json:"count"`
	Limit    int                    `json:"limit"`
}

// listAccounts is GET /v1/accounts.
func (s *Server) listAccounts(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	list := s.trackedList(p)
	v := xgAccountListView{Accounts: make([]xgTrackedAccountView, 0, len(list)), Count: len(list), Limit: trackedLimit(p)}
	for _, t := range list {
		v.Accounts = append(v.Accounts, s.accountView(p, t))
	}
	return 200, v, nil
}

// pathHandle is the {handle} path value, normalized; "" when not a handle.
func pathHandle(ctx *fasthttp.RequestCtx) string {
	h := protocol.NormalizeHandle(pathValue(ctx, "handle"))
	if !protocol.ValidHandle(h) {
		return ""
	}
	return h
}

var errNotTracked = protocol.NotFound("handle is not on your tracked list")

// accountDetail is GET /v1/accounts/{handle}.
func (s *Server) accountDetail(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	t, ok := s.findTracked(p, pathHandle(ctx))
	if !ok {
		return 0, nil, errNotTracked
	}
	v := xgTrackedDetailView{xgTrackedAccountView: s.accountView(p, t)}
	if e, ok := s.deps.Dir.ByHandle(t.handle); ok {
		u := e.User
		v.Profile = &xgProfileView{DisplayName: u.Name, Followers: u.Followers, IsVerified: u.Verified, ProfilePic: u.Avatar}
	}
	return 200, v, nil
}

type xgAddAccountsView struct {
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
		return nil, errMissingField(name)
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

func consumerCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 10*time.Second)
}

func planFull(n, limit int) *protocol.APIError {
	return protocol.Forbidden(fmt.Sprintf("your plan's tracked-account limit is reached (%d/%d)", n, limit)).
		WithHint("remove an account with DELETE /v1/accounts/{handle}, or upgrade your plan")
}

// addAccounts is POST /v1/accounts (spec 1 rules: unknown, suspended and
// over-the-limit handles are skipped silently; a full plan is 403).
func (s *Server) addAccounts(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	m, perr := fields(ctx)
	if perr != nil {
		return 0, nil, perr
	}
	handles, err := decodeHandles(m, "handles", maxHandlesPerAdd)
	if err != nil {
		return 0, nil, err
	}
	limit := trackedLimit(p)
	eligible := func(h string) bool {
		e, ok := s.deps.Dir.ByHandle(h)
		return ok && !e.User.Suspended
	}
	cctx, cancel := consumerCtx()
	defer cancel()
	if p.Product == protocol.ProductB2B {
		return s.addTargets(cctx, p, handles, limit, eligible)
	}
	added, existing, total, err := s.deps.Consumer.Registry.Track(cctx, p.AccountID, handles, limit, eligible)
	if errors.Is(err, tweetalerts.ErrPlanFull) {
		return 0, nil, planFull(total, limit)
	}
	if err != nil {
		return 0, nil, err
	}
	return 201, xgAddAccountsView{Added: added, AlreadyExists: existing, Total: total, Limit: limit}, nil
}

// addTargets applies POST /v1/accounts to the B2B target list of a dt_ key.
func (s *Server) addTargets(ctx context.Context, p *account.Principal, handles []string, limit int, eligible func(string) bool) (int, any, error) {
	reg := s.deps.Targets
	v := xgAddAccountsView{Added: []string{}, AlreadyExists: []string{}, Limit: limit}
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
		e, _ := s.deps.Dir.ByHandle(h)
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

type xgRemovedView struct {
	Removed string `json:"removed"`
	Total   int    `json:"total"`
	Limit   int    `json:"limit"`
}

// removeAccount is DELETE /v1/accounts/{handle}: keywords stay for a later
// re-add; mute and filters are cleared.
func (s *Server) removeAccount(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	h := pathHandle(ctx)
	if h == "" {
		return 0, nil, errNotTracked
	}
	cctx, cancel := consumerCtx()
	defer cancel()
	reg := s.deps.Consumer.Registry
	total := 0
	if p.Product == protocol.ProductB2B {
		err := s.deps.Targets.Remove(cctx, p.AccountID, h)
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
		_, total = s.deps.Targets.Counts(p.AccountID)
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
	return 200, xgRemovedView{Removed: h, Total: total, Limit: trackedLimit(p)}, nil
}
