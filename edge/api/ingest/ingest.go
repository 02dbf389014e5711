// Package ingest serves POST /ingest/v1/observations (CONTRACT.md section
// 3), behind the admin bearer token, and holds the ingest path the
// in-process upstream connectors share with it: Durable (the ingest log in
// front: the answer comes after the fsync; durable.go), or Accept alone.
package ingest

import (
	"bytes"
	"sync/atomic"

	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/internal/latency"
	"github.com/alertd/alertd/protocol"
	"github.com/valyala/fasthttp"
)

// Ingester takes validated observations; the handle router implements it.
type Ingester interface {
	Route(o *protocol.Observation)
	// Backlog is the number of observations routed but not yet handled.
	Backlog() int64
	// BacklogBytes is the size of their lines.
	BacklogBytes() int64
}

// MaxBacklog is the backlog at which ingest pushes back with 503 and
// Retry-After: upstreams slow down instead of the engine queueing without bound.
const MaxBacklog = 200_000

// DefaultMaxBacklogBytes bounds the backlog's lines in bytes as well
// (--ingest-backlog-bytes): 200,000 observations of full following lists
// (3 KiB and more each) would hold gigabytes where 200,000 posts hold a few
// hundred MiB. Their decoded form takes about as much again as the lines.
const DefaultMaxBacklogBytes = 256 << 20

// BacklogFull reports whether ing's backlog is at either bound (maxBytes 0:
// DefaultMaxBacklogBytes), where ingest answers 503: a batch is taken while
// the backlog is below both, so it may end one body (16 MiB) above.
func BacklogFull(ing Ingester, maxBytes int64) bool {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBacklogBytes
	}
	return ing.Backlog() > MaxBacklog || ing.BacklogBytes() > maxBytes
}

// Deps are what the ingest API uses.
type Deps struct {
	Router Ingester
	// Counts, when set, adds up what the API accepted and rejected.
	Counts *Counts
	// Durable, when set, is the path with the ingest log in front: the
	// answer comes once the accepted lines are fsynced (and routed).
	// Without it lines are routed directly (tests of the API alone).
	Durable *Durable
	// MaxBacklogBytes bounds the backlog's lines in bytes (0:
	// DefaultMaxBacklogBytes).
	MaxBacklogBytes int64
}

// Counts are the observations accepted and the lines rejected since the
// start, by the ingest API and by every in-process path that shares it
// (the connectors): the console's ingest rate and the ingest metric.
type Counts struct{ accepted, rejected atomic.Uint64 }

// Add counts one batch; nil-safe.
func (c *Counts) Add(accepted, rejected int) {
	if c == nil {
		return
	}
	c.accepted.Add(uint64(accepted))
	c.rejected.Add(uint64(rejected))
}

// Load returns the totals.
func (c *Counts) Load() (accepted, rejected uint64) { return c.accepted.Load(), c.rejected.Load() }

type api struct {
	k *httpkit.Kit
	d Deps
}

// Routes are the ingest API's routes; none without a Router.
func Routes(k *httpkit.Kit, d Deps) []httpkit.Route {
	if d.Router == nil {
		return nil
	}
	a := &api{k: k, d: d}
	return []httpkit.Route{httpkit.POST("/ingest/v1/observations", k.Admin(a.ingest))}
}

type rejectedLine struct {
	Index int    `json:"index"`
	Error string `json:"error"`
}

type ingestResult struct {
	Accepted int            `json:"accepted"`
	Rejected []rejectedLine `json:"rejected"`
}

// ingest takes a batch of observations (CONTRACT.md section 3): NDJSON or a
// JSON array. Each line is validated on its own; a bad one is reported with
// its index and never drops the others. Accepted observations go to their
// owning actors in body order, which keeps them in order per handle.
func (a *api) ingest(ctx *fasthttp.RequestCtx) {
	body := ctx.PostBody()
	if len(body) > protocol.MaxIngestBodyBytes {
		httpkit.WritePlain(ctx, 413, "request body too large: limit is 16 MiB")
		return
	}
	if BacklogFull(a.d.Router, a.d.MaxBacklogBytes) {
		httpkit.WriteError(ctx, &protocol.APIError{Status: 503, Code: protocol.CodeServiceUnavailable,
			Message: "ingest backlog full; retry shortly", RetryAfter: 1})
		return
	}
	ct := ctx.Request.Header.ContentType()
	if i := bytes.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	ct = bytes.TrimSpace(ct)
	var lines [][]byte
	ndjson := isNDJSONType(ct)
	switch {
	case ndjson:
		if a.d.Durable == nil {
			lines = protocol.SplitNDJSON(body)
		}
	case bytes.EqualFold(ct, []byte(httpkit.ContentJSON)):
		var err error
		if lines, err = protocol.SplitArray(body); err != nil {
			httpkit.WritePlain(ctx, 400, "bad request: "+err.Error())
			return
		}
	default:
		httpkit.WritePlain(ctx, 415, "unsupported media type: send application/x-ndjson or a JSON array as application/json")
		return
	}
	res := ingestResult{Rejected: []rejectedLine{}}
	reject := func(i int, err error) {
		res.Rejected = append(res.Rejected, rejectedLine{Index: i, Error: err.Error()})
	}
	if a.d.Durable == nil {
		res.Accepted = Accept(a.d.Router, lines, a.k.Now().UnixMilli(), reject)
	} else {
		var err error
		now := a.k.Now().UnixMilli()
		if ndjson { // the body is the log record as it is
			res.Accepted, err = a.d.Durable.AcceptNDJSON(body, now, reject)
		} else {
			res.Accepted, err = a.d.Durable.Accept(lines, now, reject)
		}
		if err != nil {
			a.k.Log.Error("ingest log write failed; answering 503", "err", err)
			httpkit.WriteError(ctx, &protocol.APIError{Status: 503, Code: protocol.CodeServiceUnavailable,
				Message: "ingest log unavailable; retry shortly", RetryAfter: 1})
			return
		}
	}
	a.d.Counts.Add(res.Accepted, len(res.Rejected))
	httpkit.WriteOK(ctx, 200, res)
}

// Accept validates each line as an observation detected at now (epoch ms)
// and routes the valid ones in order; reject hears the index and reason of
// each invalid one. It is the ingest path of POST /ingest/v1/observations
// and of the in-process upstream connectors. Lines are copied.
func Accept(ing Ingester, lines [][]byte, now int64, reject func(i int, err error)) (accepted int) {
	obs, _ := decode(lines, now, latency.Now(), reject)
	for _, o := range obs {
		ing.Route(o)
	}
	return len(obs)
}

// decode turns lines into observations detected at now (epoch ms) and
// ingested at at (latency.Now: the delivery latency's clock, whatever clock
// now comes from), with the indices of the lines they came from; reject
// hears each invalid one.
func decode(lines [][]byte, now, at int64, reject func(i int, err error)) (obs []*protocol.Observation, keep []int) {
	obs, keep = make([]*protocol.Observation, 0, len(lines)), make([]int, 0, len(lines))
	for i, line := range lines {
		o, err := protocol.DecodeObservation(line, now) // copies the line
		if err != nil {
			reject(i, err)
			continue
		}
		o.IngestedAt = at
		obs, keep = append(obs, o), append(keep, i)
	}
	return obs, keep
}

func isNDJSONType(ct []byte) bool {
	for _, t := range [][]byte{[]byte("application/x-ndjson"), []byte("application/ndjson"), []byte("application/jsonl"), []byte("application/x-jsonlines")} {
		if bytes.EqualFold(ct, t) {
			return true
		}
	}
	return false
}
