package httpkit_test

import (
	"testing"
	"time"

	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/edge/httpkit/httpkittest"
	"github.com/alertd/alertd/protocol"
)

// TestRateLimitSharedByAccount: the free plan's requests per second are
// the account's, whichever of its keys sends them, and the next window
// starts afresh.
func TestRateLimitSharedByAccount(t *testing.T) {
	e := httpkittest.New(t, nil)
	h := keyed(e, httpkit.FamilyTweetAlerts, "/v1/plans")
	plan := "free"
	iss := e.IssueSub(t, "", protocol.ProductTweetAlerts, account.Changes{Plan: &plan})
	dt := e.Issue(t, iss.Sub.AccountID, protocol.ProductB2B, account.Changes{})
	var statuses []int
	for i, k := range []string{iss.Key, dt, iss.Key} {
		r := get(h, "/v1/plans", httpkittest.Bearer(k))
		statuses = append(statuses, r.StatusCode())
		if i == 2 {
			if r.StatusCode() != 429 || envelopeCode(t, r) != "rate_limited" || string(r.Header.Peek("Retry-After")) != "1" {
				t.Fatalf("third request: %d %s retry-after %q", r.StatusCode(), r.Body(), r.Header.Peek("Retry-After"))
			}
		}
	}
	if statuses[0] != 200 || statuses[1] != 200 {
		t.Fatalf("statuses %v", statuses)
	}
	e.Clock.Advance(time.Second)
	if r := get(h, "/v1/plans", httpkittest.Bearer(iss.Key)); r.StatusCode() != 200 {
		t.Fatalf("next window: %d", r.StatusCode())
	}
}

// TestProductRateLimit: a product family allows 20 requests a second; the
// B2B family is not limited.
func TestProductRateLimit(t *testing.T) {
	e := httpkittest.New(t, nil)
	cw := e.Issue(t, "", protocol.ProductCW, account.Changes{})
	h := keyed(e, httpkit.ProductFamily(protocol.ProductCW), "/v1/cw/status")
	for i := range 20 {
		if r := get(h, "/v1/cw/status", httpkittest.Bearer(cw)); r.StatusCode() != 200 {
			t.Fatalf("request %d: %d", i, r.StatusCode())
		}
	}
	if r := get(h, "/v1/cw/status", httpkittest.Bearer(cw)); r.StatusCode() != 429 {
		t.Fatalf("21st request: %d", r.StatusCode())
	}
	dt := e.Issue(t, "", protocol.ProductB2B, account.Changes{})
	b := keyed(e, httpkit.FamilyB2B, "/v1/dt/status")
	for i := range 100 {
		if r := get(b, "/v1/dt/status", httpkittest.Bearer(dt)); r.StatusCode() != 200 {
			t.Fatalf("B2B request %d: %d", i, r.StatusCode())
		}
	}
}

func TestRetrySeconds(t *testing.T) {
	for d, want := range map[time.Duration]int{0: 1, -time.Second: 1, time.Millisecond: 1, time.Second: 1,
		time.Second + 1: 2, 59*time.Second + time.Millisecond: 60} {
		if got := httpkit.RetrySeconds(d); got != want {
			t.Errorf("RetrySeconds(%v) = %d, want %d", d, got, want)
		}
	}
}
