package edge

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	"github.com/valyala/fasthttp"
)

// lookupTimeout bounds the store reads of one lookups request.
const lookupTimeout = 10 * time.Second

func lookupCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), lookupTimeout)
}

// dtHasModule reports whether the dt subscription carries module.
func dtHasModule(p *account.Principal, module string) bool {
	return slices.Contains(p.Sub.Modules, module)
}

func errDTNoModule(module string) error {
	return protocol.Forbidden(fmt.Sprintf("your plan does not include the %s module", module))
}

// dtTarget is the gate of the per-handle endpoints (spec 2): the plan must
// carry module (when one is named), the {handle} must be on the caller's
// target list (403 otherwise), and it must be resolved to a platform user
// (503 with retry_after 30 until a user observation fills it in).
func (s *Server) dtTarget(ctx *fasthttp.RequestCtx, p *account.Principal, module string) (persistence.Target, error) {
	if module != "" && !dtHasModule(p, module) {
		return persistence.Target{}, errDTNoModule(module)
	}
	h := protocol.NormalizeHandle(pathValue(ctx, "handle"))
	t, ok := s.deps.Targets.Get(p.AccountID, h)
	if !ok {
		return t, protocol.Forbidden(fmt.Sprintf("@%s is not in your target list", h))
	}
	if t.SocialUserID == nil {
		return t, protocol.Unavailable(fmt.Sprintf("@%s is not resolved yet; retry shortly", h))
	}
	return t, nil
}

// lookupDataHandle is the handle under which the target's data arrives now: the
// current handle of its platform user (a rename moves posts, follows and
// communities to the new handle), else the handle as listed.
func (s *Server) lookupDataHandle(t persistence.Target) string {
	if t.SocialUserID != nil {
		if e, ok := s.deps.Dir.ByID(*t.SocialUserID); ok && e.User.Handle != "" {
			return e.User.Handle
		}
	}
	return t.Handle
}

// lookupPage reads the limit and offset query of a paged endpoint: limit defaults
// to def and is capped at max; both must be integers, limit at least 1 and
// offset at least 0.
func lookupPage(ctx *fasthttp.RequestCtx, def, max int) (limit, offset int, err error) {
	limit, err = lookupQueryInt(ctx, "limit", def, 1)
	if err != nil {
		return 0, 0, err
	}
	if offset, err = lookupQueryInt(ctx, "offset", 0, 0); err != nil {
		return 0, 0, err
	}
	return min(limit, max), offset, nil
}

func lookupQueryInt(ctx *fasthttp.RequestCtx, name string, def, least int) (int, error) {
	raw := ctx.QueryArgs().Peek(name)
	if len(raw) == 0 {
		return def, nil
	}
	n, err := strconv.Atoi(string(raw))
	if err != nil || n < least {
		return 0, protocol.BadRequest(fmt.Sprintf("%s must be an integer of at least %d", name, least))
	}
	return n, nil
}
