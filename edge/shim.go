package edge

// Temporary: the handlers still in this package reach the shared pieces
// that moved to edge/httpkit through these names, until each product's
// handlers move to edge/api/<product>.

import (
	"github.com/alertd/alertd/actors/product/eca"
	"github.com/alertd/alertd/actors/product/pumpfun"
	"github.com/alertd/alertd/actors/product/searchalerts"
	"github.com/alertd/alertd/actors/product/trending"
	"github.com/alertd/alertd/actors/session"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/edge/ws"
	"github.com/alertd/alertd/protocol"
	"github.com/fasthttp/router"
	json "github.com/goccy/go-json"
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

func (s *Server) productSocket(p protocol.Product, scope func(acct string) session.Scope) fasthttp.RequestHandler {
	return s.kit.ProductSocket(p, scope)
}

func (s *Server) storedWebhookRoutes(r *router.Router, segment string, p protocol.Product) {
	for _, rt := range s.kit.StoredWebhookRoutes(segment, p, s.deps.Store) {
		r.Handle(rt.Method, rt.Path, rt.Handler)
	}
}

var _ json.RawMessage

// ProductDeps2 are the services the products2 routes use (wired in
// cmd/alertd): Trending, PumpFun, ECA and Search Alerts. A nil service
// leaves its routes out.
type ProductDeps2 struct {
	Trending *trending.Service
	PumpFun  *pumpfun.Service
	ECA      *eca.Service
	SA       *searchalerts.Service
}

// product2Routes registers the products2 routes (spec 3).
func (s *Server) product2Routes(r *router.Router) {
	d := s.deps.Products2
	if d.Trending != nil {
		s.trendingRoutes(r)
	}
	if d.PumpFun != nil {
		s.pfRoutes(r)
	}
	if d.ECA != nil {
		s.ecaRoutes(r)
	}
	if d.SA != nil {
		s.saRoutes(r)
	}
}

var _ = account.OK
