package edge

import (
	"bytes"
	"sync/atomic"

	"github.com/alertd/alertd/protocol"
	"github.com/valyala/fasthttp"
)

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
func (s *Server) ingest(ctx *fasthttp.RequestCtx) {
	body := ctx.PostBody()
	if len(body) > protocol.MaxIngestBodyBytes {
		writePlain(ctx, 413, "request body too large: limit is 16 MiB")
		return
	}
	if s.deps.Ingest.Backlog() > MaxIngestBacklog {
		writeError(ctx, &protocol.APIError{Status: 503, Code: protocol.CodeServiceUnavailable,
			Message: "ingest backlog full; retry shortly", RetryAfter: 1})
		return
	}
	ct := ctx.Request.Header.ContentType()
	if i := bytes.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	ct = bytes.TrimSpace(ct)
	var lines [][]byte
	switch {
	case isNDJSONType(ct):
		lines = protocol.SplitNDJSON(body)
	case bytes.EqualFold(ct, []byte(contentJSON)):
		var err error
		if lines, err = protocol.SplitArray(body); err != nil {
			writePlain(ctx, 400, "bad request: "+err.Error())
			return
		}
	default:
		writePlain(ctx, 415, "unsupported media type: send application/x-ndjson or a JSON array as application/json")
		return
	}
	res := ingestResult{Rejected: []rejectedLine{}}
	res.Accepted = Accept(s.deps.Ingest, lines, s.now().UnixMilli(), func(i int, err error) {
		res.Rejected = append(res.Rejected, rejectedLine{Index: i, Error: err.Error()})
	})
	s.ingested.accepted.Add(uint64(res.Accepted))
	s.ingested.rejected.Add(uint64(len(res.Rejected)))
	writeOK(ctx, 200, res)
}

// ingestCounts are the observations POST /ingest/v1/observations accepted
// and the lines it rejected since the start (the console's ingest rate).
type ingestCounts struct{ accepted, rejected atomic.Uint64 }

// Ingested is what the ingest API accepted and rejected so far.
func (s *Server) Ingested() (accepted, rejected uint64) {
	return s.ingested.accepted.Load(), s.ingested.rejected.Load()
}

// Accept validates each line as an observation detected at now (epoch ms)
// and routes the valid ones in order; reject hears the index and reason of
// each invalid one. It is the ingest path of POST /ingest/v1/observations
// and of the in-process upstream connectors. Lines are copied.
func Accept(ing Ingester, lines [][]byte, now int64, reject func(i int, err error)) (accepted int) {
	for i, line := range lines {
		o, err := protocol.DecodeObservation(line, now) // copies the line
		if err != nil {
			reject(i, err)
			continue
		}
		ing.Route(o)
		accepted++
	}
	return accepted
}

func isNDJSONType(ct []byte) bool {
	for _, t := range [][]byte{[]byte("application/x-ndjson"), []byte("application/ndjson"), []byte("application/jsonl"), []byte("application/x-jsonlines")} {
		if bytes.EqualFold(ct, t) {
			return true
		}
	}
	return false
}
