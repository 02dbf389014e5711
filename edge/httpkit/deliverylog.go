package httpkit

import (
	"strconv"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	"github.com/valyala/fasthttp"
)

// The webhook delivery log as the admin API and Tweet Alerts show it: a
// page of deliveries, newest first, each with its attempts.

// DeliveryLogMax is the most deliveries one page holds (default 20).
const DeliveryLogMax = 100

// DeliveryPage reads a delivery log page's query: limit (default 20, at
// most DeliveryLogMax) and cursor (the next_cursor of the page before).
func DeliveryPage(ctx *fasthttp.RequestCtx) (limit int, before int64, err error) {
	if limit, err = QueryInt(ctx, "limit", 20, 1); err != nil {
		return 0, 0, err
	}
	if raw := ctx.QueryArgs().Peek("cursor"); len(raw) > 0 {
		if before, err = strconv.ParseInt(string(raw), 10, 64); err != nil || before < 1 {
			return 0, 0, protocol.BadRequest("cursor must be the next_cursor of the page before")
		}
	}
	return min(limit, DeliveryLogMax), before, nil
}

// DeliveryLogView is one page of the log.
type DeliveryLogView struct {
	Deliveries []DeliveryView `json:"deliveries"`
	// NextCursor continues below the last delivery; null on the last page.
	NextCursor *string `json:"next_cursor"`
}

// DeliveryView is one delivery.
type DeliveryView struct {
	DeliveryID string        `json:"delivery_id"`
	Event      string        `json:"event"`
	State      string        `json:"state"`
	CreatedAt  time.Time     `json:"created_at"`
	FinishedAt *time.Time    `json:"finished_at"`
	Attempts   []AttemptView `json:"attempts"`
}

// AttemptView is one attempt: the receiver's status code (null without an
// answer, when error says why), its latency and what it came to.
type AttemptView struct {
	At         time.Time `json:"at"`
	StatusCode *int      `json:"status_code"`
	LatencyMS  int64     `json:"latency_ms"`
	Error      *string   `json:"error"`
	Result     string    `json:"result"`
}

// ViewDeliveryLog renders entries, a page of at most limit.
func ViewDeliveryLog(entries []persistence.WebhookLogEntry, limit int) DeliveryLogView {
	v := DeliveryLogView{Deliveries: make([]DeliveryView, 0, len(entries))}
	for _, e := range entries {
		d := DeliveryView{DeliveryID: e.DeliveryID, Event: e.Event, State: e.State, CreatedAt: e.CreatedAt.UTC(),
			Attempts: make([]AttemptView, 0, len(e.Log))}
		if e.FinishedAt != nil {
			f := e.FinishedAt.UTC()
			d.FinishedAt = &f
		}
		for _, a := range e.Log {
			av := AttemptView{At: a.At.UTC(), LatencyMS: a.Latency.Milliseconds(), Result: a.Result}
			if a.StatusCode != 0 {
				code := a.StatusCode
				av.StatusCode = &code
			}
			if a.Error != "" {
				msg := a.Error
				av.Error = &msg
			}
			d.Attempts = append(d.Attempts, av)
		}
		v.Deliveries = append(v.Deliveries, d)
	}
	if len(entries) == limit && limit > 0 {
		c := strconv.FormatInt(entries[len(entries)-1].Seq, 10)
		v.NextCursor = &c
	}
	return v
}
