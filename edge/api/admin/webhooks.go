package admin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/alertd/alertd/actors/webhook"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// Webhooks are one product's webhook deliveries (*webhook.Engine): the log
// and the redelivery of finished deliveries.
type Webhooks interface {
	DeliveryLog(ctx context.Context, endpoint int64, before int64, limit int) ([]persistence.WebhookLogEntry, error)
	Redeliver(ctx context.Context, endpoint int64, f persistence.RedeliverFilter) ([]persistence.WebhookDelivery, error)
}

// webhooksOf reads ?product= (default xg) and {id}: the product's
// deliveries and the webhook id.
func (a *api) webhooksOf(ctx *fasthttp.RequestCtx) (Webhooks, int64, *protocol.APIError) {
	name := string(ctx.QueryArgs().Peek("product"))
	if name == "" {
		name = string(protocol.ProductTweetAlerts)
	}
	p, _ := protocol.ParseProduct(name)
	w := a.d.Webhooks[p]
	if w == nil {
		return nil, 0, protocol.BadRequest("product must be one that sends webhooks: xg, cw, ct or et")
	}
	id, err := strconv.ParseInt(httpkit.PathValue(ctx, "id"), 10, 64)
	if err != nil || id <= 0 {
		return nil, 0, protocol.NotFound("no such webhook")
	}
	return w, id, nil
}

// deliveries is GET /admin/v1/webhooks/{id}/deliveries: the webhook's
// deliveries, newest first, with their attempts, a page at a time.
func (a *api) deliveries(ctx *fasthttp.RequestCtx) {
	w, id, aerr := a.webhooksOf(ctx)
	if aerr != nil {
		httpkit.WriteError(ctx, aerr)
		return
	}
	limit, before, err := httpkit.DeliveryPage(ctx)
	if err != nil {
		httpkit.WriteError(ctx, asAPIError(err))
		return
	}
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	log, err := w.DeliveryLog(cctx, id, before, limit)
	if err != nil {
		httpkit.WriteError(ctx, a.internal("delivery log", err))
		return
	}
	httpkit.WriteOK(ctx, 200, httpkit.ViewDeliveryLog(log, limit))
}

// redeliveredView answers a redelivery: the deliveries queued again.
type redeliveredView struct {
	Redelivered int      `json:"redelivered"`
	DeliveryIDs []string `json:"delivery_ids"`
}

// redeliverOne is POST /admin/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver.
func (a *api) redeliverOne(ctx *fasthttp.RequestCtx) {
	w, id, aerr := a.webhooksOf(ctx)
	if aerr != nil {
		httpkit.WriteError(ctx, aerr)
		return
	}
	did := httpkit.PathValue(ctx, "delivery_id")
	rows, err := a.redeliver(w, id, persistence.RedeliverFilter{IDs: []string{did}})
	if err != nil {
		httpkit.WriteError(ctx, err)
		return
	}
	if len(rows.DeliveryIDs) == 0 {
		httpkit.WriteError(ctx, protocol.NotFound(fmt.Sprintf("webhook %d has no finished delivery %q", id, did)).
			WithHint("a delivery still queued is on its way; see GET /admin/v1/webhooks/{id}/deliveries"))
		return
	}
	httpkit.WriteOK(ctx, 202, rows)
}

// redeliverStates are the states a time-range redelivery may select.
var redeliverStates = []string{persistence.DeliveryFailed, persistence.DeliveryDropped, persistence.DeliveryDelivered}

// redeliverRange is POST /admin/v1/webhooks/{id}/redeliver: every finished
// delivery created in [since, until) whose state is one of states (default
// failed and dropped), like a recovery after a receiver's outage.
func (a *api) redeliverRange(ctx *fasthttp.RequestCtx) {
	w, id, aerr := a.webhooksOf(ctx)
	if aerr != nil {
		httpkit.WriteError(ctx, aerr)
		return
	}
	m, perr := httpkit.Fields(ctx)
	if perr != nil {
		perr.Write(ctx)
		return
	}
	f, aerr := decodeRange(m)
	if aerr != nil {
		if aerr.Status == 422 {
			httpkit.WritePlain(ctx, 422, aerr.Message)
			return
		}
		httpkit.WriteError(ctx, aerr)
		return
	}
	v, err := a.redeliver(w, id, f)
	if err != nil {
		httpkit.WriteError(ctx, err)
		return
	}
	httpkit.WriteOK(ctx, 202, v)
}

func (a *api) redeliver(w Webhooks, id int64, f persistence.RedeliverFilter) (redeliveredView, *protocol.APIError) {
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	rows, err := w.Redeliver(cctx, id, f)
	if errors.Is(err, webhook.ErrUnknownEndpoint) {
		return redeliveredView{}, protocol.NewError(409, protocol.CodeConflict, fmt.Sprintf("webhook %d is not active", id)).
			WithHint("a deleted or disabled webhook gets no deliveries; its log stays readable")
	}
	if err != nil {
		return redeliveredView{}, a.internal("redeliver", err)
	}
	v := redeliveredView{Redelivered: len(rows), DeliveryIDs: make([]string, 0, len(rows))}
	for _, r := range rows {
		v.DeliveryIDs = append(v.DeliveryIDs, r.DeliveryID)
	}
	return v, nil
}

// decodeRange reads {since, until?, states?} (RFC 3339 times).
func decodeRange(m map[string]json.RawMessage) (persistence.RedeliverFilter, *protocol.APIError) {
	var f persistence.RedeliverFilter
	for k := range m {
		if k != "since" && k != "until" && k != "states" {
			return f, protocol.BadRequest("unknown field " + k)
		}
	}
	readTime := func(name string) (time.Time, *protocol.APIError) {
		var s string
		if json.Unmarshal(m[name], &s) != nil {
			return time.Time{}, protocol.BadRequest(name + " must be an RFC 3339 time")
		}
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return time.Time{}, protocol.BadRequest(name + " must be an RFC 3339 time")
		}
		return t, nil
	}
	if _, ok := m["since"]; !ok {
		return f, &protocol.APIError{Status: 422, Message: httpkit.MissingField("since").Msg}
	}
	var aerr *protocol.APIError
	if f.Since, aerr = readTime("since"); aerr != nil {
		return f, aerr
	}
	if raw, ok := m["until"]; ok && !httpkit.IsNull(raw) {
		if f.Until, aerr = readTime("until"); aerr != nil {
			return f, aerr
		}
		if !f.Until.After(f.Since) {
			return f, protocol.BadRequest("until must be after since")
		}
	}
	if raw, ok := m["states"]; ok && !httpkit.IsNull(raw) {
		if json.Unmarshal(raw, &f.States) != nil || len(f.States) == 0 {
			return f, protocol.BadRequest("states must be a non-empty array of failed, dropped, delivered")
		}
		for _, s := range f.States {
			if !slices.Contains(redeliverStates, s) {
				return f, protocol.BadRequest("states must be a non-empty array of failed, dropped, delivered")
			}
		}
	}
	return f, nil
}

// internal logs a store failure and answers 500.
func (a *api) internal(what string, err error) *protocol.APIError {
	a.k.Log.Error("admin: "+what, "err", err)
	return protocol.Internal()
}

// asAPIError keeps an *protocol.APIError and makes anything else a 500.
func asAPIError(err error) *protocol.APIError {
	var ae *protocol.APIError
	if errors.As(err, &ae) {
		return ae
	}
	return protocol.Internal()
}
