package edge

// Temporary: the handlers still in this package reach the shared pieces
// that moved to edge/httpkit through these names, until each product's
// handlers move to edge/api/<product>.

import (
	"github.com/alertd/alertd/actors/session"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/edge/ws"
	"github.com/valyala/fasthttp"
)

const contentJSON = httpkit.ContentJSON

type (
	Family             = httpkit.Family
	Handler            = httpkit.Handler
	parseError         = httpkit.ParseError
	socialError        = httpkit.SocialError
	subscriptionStatus = httpkit.PlanStatus
)

var (
	FamilyTweetAlerts = httpkit.FamilyTweetAlerts
	FamilyB2B         = httpkit.FamilyB2B
	FamilySocial      = httpkit.FamilySocial
	FamilySearch      = httpkit.FamilySearch
	ProductFamily     = httpkit.ProductFamily
	writeOK           = httpkit.WriteOK
	writeError        = httpkit.WriteError
	writeJSON         = httpkit.WriteJSON
	writePlain        = httpkit.WritePlain
	reasonText        = httpkit.ReasonText
	retrySeconds      = httpkit.RetrySeconds
	errMissingField   = httpkit.MissingField
	readJSON          = httpkit.ReadJSON
	fields            = httpkit.Fields
	isNull            = httpkit.IsNull
	pathValue         = httpkit.PathValue
	accountScope      = httpkit.AccountScope
	productScope      = httpkit.ProductScope
	walletScope       = httpkit.WalletScope
	statusOf          = httpkit.StatusOf
)

func (s *Server) wrap(f *Family, h Handler) fasthttp.RequestHandler { return s.kit.Keyed(f, h) }

func (s *Server) fail(ctx *fasthttp.RequestCtx, f *Family, err error) { s.kit.Fail(ctx, f, err) }

func (s *Server) upgrade(ctx *fasthttp.RequestCtx, sess session.Socket, opt ws.Options) {
	s.kit.Upgrade(ctx, sess, opt)
}

var _ = account.OK
