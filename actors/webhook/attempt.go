package webhook

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/valyala/fasthttp"
)

// outcome is what one attempt came to.
type outcome uint8

const (
	outcomeOK      outcome = iota // 2xx
	outcomeRetry                  // 5xx, network error or timeout: retried while attempts remain
	outcomeFail                   // any other answer (4xx, 3xx: redirects are not followed): final
	outcomeAborted                // the engine stopped mid-attempt: not counted
)

// result is one attempt as the log keeps it.
type result struct {
	out     outcome
	at      time.Time // when it began
	status  int       // the answer's status; 0 without one
	latency time.Duration
	err     string // why there was no answer (no URL, secret or query in it)
}

// job is one attempt for a worker.
type job struct {
	ep  Endpoint
	d   *delivery
	pid *actor.PID
}

// work makes one attempt on a worker of the engine's pool (kit.Workers,
// whose queue cannot grow past endpoints × Policy.PerEndpoint, since an
// endpoint submits only while it has room) and tells the endpoint.
func (e *Engine) work(j job) {
	res := e.attempt(j.ep, j.d)
	// An endpoint removed or disabled meanwhile no longer hears.
	if cur := e.pid(j.ep.ID); cur != nil && cur.Equal(j.pid) {
		e.root.Send(j.pid, &attemptDone{d: j.d, res: res})
	}
}

// attempt makes one POST of d to ep.
func (e *Engine) attempt(ep Endpoint, d *delivery) result {
	res := result{at: e.cfg.Now()}
	start := time.Now()
	res.out, res.status, res.err = e.post(ep, d)
	res.latency = time.Since(start)
	return res
}

// post makes the request: its outcome, the answer's status, and why there
// was none.
func (e *Engine) post(ep Endpoint, d *delivery) (outcome, int, string) {
	pol := &e.cfg.Policy
	if !validURL(ep.URL) {
		return outcomeFail, 0, "the URL cannot make a request" // and never will
	}
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI(ep.URL)
	req.Header.SetMethod(fasthttp.MethodPost)
	h := &req.Header
	for k, v := range pol.Headers {
		h.Set(k, v)
	}
	for k, v := range ep.Headers {
		h.Set(k, v)
	}
	h.SetContentType("application/json")
	h.SetUserAgent("alertd-webhooks/1")
	if pol.EndpointIDHeader != "" {
		h.Set(pol.EndpointIDHeader, strconv.FormatInt(ep.ID, 10))
	}
	if pol.DeliveryIDHeader != "" {
		h.Set(pol.DeliveryIDHeader, d.row.DeliveryID)
	}
	switch pol.Signature.Kind {
	case SignHMAC:
		h.Set(pol.Signature.Header, Sign(ep.Secret, d.row.Body))
	case SignSecret:
		h.Set(pol.Signature.Header, ep.Secret)
	}
	req.SetBodyRaw(d.row.Body)
	err := e.send.do(req, resp, time.Now().Add(pol.Timeout))
	if err != nil {
		if e.base.Err() != nil {
			return outcomeAborted, 0, ""
		}
		return outcomeRetry, 0, sendError(err, pol.Timeout)
	}
	switch status := resp.StatusCode(); {
	case status >= 200 && status < 300:
		return outcomeOK, status, ""
	case status >= 500:
		return outcomeRetry, status, ""
	default:
		return outcomeFail, status, ""
	}
}

// attemptError says why an attempt got no answer, for the log that the
// operator and the webhook's owner read: without the URL, whose query may
// hold a receiver's token.
func attemptError(err error, timeout time.Duration) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "no answer within " + timeout.String()
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	msg := err.Error()
	if len(msg) > 300 {
		msg = msg[:300]
	}
	return msg
}
