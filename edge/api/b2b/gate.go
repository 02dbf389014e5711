package b2b

import (
	"fmt"
	"slices"

	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	"github.com/valyala/fasthttp"
)

// hasModule reports whether the dt subscription carries module.
func hasModule(p *account.Principal, module string) bool {
	return slices.Contains(p.Sub.Modules, module)
}

func errNoModule(module string) error {
	return protocol.Forbidden(fmt.Sprintf("your plan does not include the %s module", module))
}

// listedTarget is the gate of the per-handle endpoints (spec 2): the plan must
// carry module (when one is named), the {handle} must be on the caller's
// target list (403 otherwise), and it must be resolved to a platform user
// (503 with retry_after 30 until a user observation fills it in).
func (a *api) listedTarget(ctx *fasthttp.RequestCtx, p *account.Principal, module string) (persistence.Target, error) {
	if module != "" && !hasModule(p, module) {
		return persistence.Target{}, errNoModule(module)
	}
	h := protocol.NormalizeHandle(httpkit.PathValue(ctx, "handle"))
	t, ok := a.d.Targets.Get(p.AccountID, h)
	if !ok {
		return t, protocol.Forbidden(fmt.Sprintf("@%s is not in your target list", h))
	}
	if t.SocialUserID == nil {
		return t, protocol.Unavailable(fmt.Sprintf("@%s is not resolved yet; retry shortly", h))
	}
	return t, nil
}

// dataHandle is the handle under which the target's data arrives now: the
// current handle of its platform user (a rename moves posts, follows and
// communities to the new handle), else the handle as listed.
func (a *api) dataHandle(t persistence.Target) string {
	if t.SocialUserID != nil {
		if e, ok := a.d.Dir.ByID(*t.SocialUserID); ok && e.User.Handle != "" {
			return e.User.Handle
		}
	}
	return t.Handle
}
