package storetest

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
)

// webhookLogTests cover the webhook engines' durable queue and the delivery
// log it leaves behind.
var webhookLogTests = []test{
	{"queue: InsertNewDeliveries returns only ids the scope did not hold (queued or finished)", func(t *testing.T, s persistence.Store) {
		q, ok := s.(interface {
			InsertNewDeliveries(ctx context.Context, ds []persistence.WebhookDelivery) ([]persistence.WebhookDelivery, error)
		})
		if !ok {
			t.Skip("the store has no InsertNewDeliveries")
		}
		ctx := t.Context()
		d := func(scope, id string) persistence.WebhookDelivery {
			return persistence.WebhookDelivery{Scope: scope, EndpointID: 1, DeliveryID: id, Event: "tweet", Body: []byte("{}"), CreatedAt: at(0)}
		}
		ids := func(ds []persistence.WebhookDelivery) string {
			var out []string
			for _, x := range ds {
				out = append(out, x.Scope+"/"+x.DeliveryID)
			}
			return fmt.Sprint(out)
		}
		fresh, err := q.InsertNewDeliveries(ctx, []persistence.WebhookDelivery{d("xg", "n1"), d("xg", "n2"), d("xg", "n1")})
		must(t, "InsertNewDeliveries", err)
		if got := ids(fresh); got != "[xg/n1 xg/n2]" {
			t.Fatalf("first insert: %s", got)
		}
		must(t, "RecordAttempts ok", s.RecordAttempts(ctx, "xg", []persistence.WebhookAttempt{
			{DeliveryID: "n2", At: at(time.Second), StatusCode: 200, Result: persistence.AttemptOK, Attempts: 1}}))
		fresh, err = q.InsertNewDeliveries(ctx, []persistence.WebhookDelivery{d("xg", "n1"), d("xg", "n2"), d("cw", "n1"), d("xg", "n3")})
		must(t, "InsertNewDeliveries again", err)
		if got := ids(fresh); got != "[cw/n1 xg/n3]" {
			t.Fatalf("second insert (n1 queued, n2 delivered): %s", got)
		}
		queued, err := s.ListDeliveries(ctx, "xg")
		must(t, "ListDeliveries", err)
		if len(queued) != 2 {
			t.Fatalf("queued after both inserts: %d, want n1 and n3", len(queued))
		}
		// A store may say the Seq it gave each new delivery (0: not known);
		// an attempt recorded by that Seq finishes that delivery.
		n3 := fresh[1]
		if n3.Seq != 0 && n3.Seq != queued[1].Seq {
			t.Fatalf("InsertNewDeliveries gave n3 Seq %d, the store holds %d", n3.Seq, queued[1].Seq)
		}
		must(t, "RecordAttempts by Seq", s.RecordAttempts(ctx, "xg", []persistence.WebhookAttempt{
			{DeliveryID: "n3", Seq: n3.Seq, At: at(time.Second), StatusCode: 200, Result: persistence.AttemptOK, Attempts: 1}}))
		if queued, err = s.ListDeliveries(ctx, "xg"); err != nil || len(queued) != 1 || queued[0].DeliveryID != "n1" {
			t.Fatalf("queued after n3 delivered: %+v, %v; want n1", queued, err)
		}
	}},
	{"queue: insert, skip duplicates, attempts, list order, drop", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		d := func(scope string, ep int64, id string, ms int) persistence.WebhookDelivery {
			return persistence.WebhookDelivery{Scope: scope, EndpointID: ep, DeliveryID: id, Event: "tweet",
				Body: []byte(`{"id":"` + id + `"}`), CreatedAt: at(time.Duration(ms) * time.Millisecond)}
		}
		must(t, "InsertDeliveries", s.InsertDeliveries(ctx, []persistence.WebhookDelivery{
			d("xg", 1, "d3", 0), d("xg", 2, "d1", 1), d("cw", 1, "d1", 2), d("xg", 1, "d2", 3),
		}))
		dup := d("xg", 1, "d3", 9)
		dup.Body = []byte("changed")
		must(t, "InsertDeliveries duplicate", s.InsertDeliveries(ctx, []persistence.WebhookDelivery{dup, d("xg", 1, "d4", 10)}))
		must(t, "RecordAttempts retry", s.RecordAttempts(ctx, "xg", []persistence.WebhookAttempt{
			{DeliveryID: "d1", At: at(time.Second), StatusCode: 503, Latency: 20 * time.Millisecond, Result: persistence.AttemptRetry, Attempts: 2},
		}))
		got, err := s.ListDeliveries(ctx, "xg")
		must(t, "ListDeliveries", err)
		var ids []string
		for _, x := range got {
			ids = append(ids, fmt.Sprintf("%s/%d/%d/%s/%s", x.DeliveryID, x.EndpointID, x.Attempts, x.State, x.Event))
		}
		if want := "[d3/1/0/queued/tweet d1/2/2/queued/tweet d2/1/0/queued/tweet d4/1/0/queued/tweet]"; fmt.Sprint(ids) != want {
			t.Fatalf("queued = %v, want %s", ids, want)
		}
		if !bytes.Equal(got[0].Body, []byte(`{"id":"d3"}`)) {
			t.Errorf("duplicate insert changed the body: %s", got[0].Body)
		}
		checkTime(t, "CreatedAt", got[1].CreatedAt, at(time.Millisecond))
		if n, err := s.QueuedDeliveries(ctx); err != nil || n != 5 {
			t.Errorf("QueuedDeliveries = %d, %v; want 5", n, err)
		}
		// d1 delivered, d2 dropped by id, the rest of endpoint 1 dropped.
		must(t, "RecordAttempts ok", s.RecordAttempts(ctx, "xg", []persistence.WebhookAttempt{
			{DeliveryID: "d1", At: at(2 * time.Second), StatusCode: 200, Latency: 5 * time.Millisecond, Result: persistence.AttemptOK, Attempts: 3},
		}))
		must(t, "DropDeliveries", s.DropDeliveries(ctx, "xg", []string{"d2", "d2", "nope"}, at(time.Minute)))
		must(t, "DropEndpointDeliveries", s.DropEndpointDeliveries(ctx, "xg", 1, at(time.Minute)))
		got, err = s.ListDeliveries(ctx, "xg")
		must(t, "ListDeliveries", err)
		if len(got) != 0 {
			t.Fatalf("xg queue not empty: %+v", got)
		}
		got, err = s.ListDeliveries(ctx, "cw")
		must(t, "ListDeliveries cw", err)
		if len(got) != 1 || got[0].DeliveryID != "d1" || got[0].Attempts != 0 {
			t.Fatalf("cw queue = %+v: other scopes must be untouched", got)
		}
		if n, err := s.QueuedDeliveries(ctx); err != nil || n != 1 {
			t.Errorf("QueuedDeliveries = %d, %v; want 1", n, err)
		}

		// The log keeps every delivery with its attempts, newest first.
		log, err := s.DeliveryLog(ctx, "xg", 2, 0, 10)
		must(t, "DeliveryLog", err)
		if len(log) != 1 || log[0].DeliveryID != "d1" || log[0].State != persistence.DeliveryDelivered || len(log[0].Log) != 2 {
			t.Fatalf("endpoint 2's log = %+v", log)
		}
		if log[0].FinishedAt == nil {
			t.Fatal("a delivered delivery has no finish time")
		}
		checkTime(t, "FinishedAt", *log[0].FinishedAt, at(2*time.Second))
		a0, a1 := log[0].Log[0], log[0].Log[1]
		if a0.StatusCode != 503 || a0.Result != persistence.AttemptRetry || a0.Latency != 20*time.Millisecond || a0.Attempts != 1 ||
			a1.StatusCode != 200 || a1.Result != persistence.AttemptOK || a1.Attempts != 2 {
			t.Errorf("attempts = %+v", log[0].Log)
		}
		checkTime(t, "attempt At", a0.At, at(time.Second))
		log, err = s.DeliveryLog(ctx, "xg", 1, 0, 2)
		must(t, "DeliveryLog endpoint 1", err)
		if len(log) != 2 || log[0].DeliveryID != "d4" || log[1].DeliveryID != "d2" || log[0].State != persistence.DeliveryDropped {
			t.Fatalf("endpoint 1's newest two = %+v", log)
		}
		older, err := s.DeliveryLog(ctx, "xg", 1, log[1].Seq, 10)
		must(t, "DeliveryLog page 2", err)
		if len(older) != 1 || older[0].DeliveryID != "d3" || len(older[0].Log) != 0 {
			t.Fatalf("endpoint 1's next page = %+v", older)
		}
		if none, err := s.DeliveryLog(ctx, "xg", 99, 0, 10); err != nil || none == nil || len(none) != 0 {
			t.Errorf("an unknown endpoint's log = %+v, %v; want an empty list", none, err)
		}
	}},
	{"queue: many in one batch", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		var ds []persistence.WebhookDelivery
		var ids []string
		for i := range 700 {
			id := fmt.Sprintf("d%04d", i)
			ids = append(ids, id)
			ds = append(ds, persistence.WebhookDelivery{Scope: "xg", EndpointID: int64(i % 3), DeliveryID: id, Body: []byte("{}"), CreatedAt: at(0)})
		}
		must(t, "InsertDeliveries", s.InsertDeliveries(ctx, ds))
		got, err := s.ListDeliveries(ctx, "xg")
		must(t, "ListDeliveries", err)
		if len(got) != 700 || got[0].DeliveryID != "d0000" || got[699].DeliveryID != "d0699" {
			t.Fatalf("got %d deliveries", len(got))
		}
		must(t, "DropDeliveries", s.DropDeliveries(ctx, "xg", ids[:650], at(time.Second)))
		var as []persistence.WebhookAttempt
		for _, id := range ids[650:690] {
			as = append(as, persistence.WebhookAttempt{DeliveryID: id, At: at(time.Second), StatusCode: 200, Result: persistence.AttemptOK, Attempts: 1})
		}
		must(t, "RecordAttempts", s.RecordAttempts(ctx, "xg", as))
		got, err = s.ListDeliveries(ctx, "xg")
		must(t, "ListDeliveries", err)
		if len(got) != 10 || got[0].DeliveryID != "d0690" {
			t.Fatalf("after drop and delivery: %d left", len(got))
		}
	}},
	{"queue: an endpoint's oldest queued deliveries, up to a limit", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		var ds []persistence.WebhookDelivery
		for i := range 6 {
			ds = append(ds, persistence.WebhookDelivery{Scope: "xg", EndpointID: 3, DeliveryID: fmt.Sprint("e", i),
				Body: []byte(`{}`), CreatedAt: at(time.Duration(i) * time.Second)})
		}
		other := ds[0]
		other.EndpointID, other.DeliveryID = 4, "other"
		otherScope := ds[0]
		otherScope.Scope, otherScope.DeliveryID = "cw", "scoped"
		must(t, "InsertDeliveries", s.InsertDeliveries(ctx, append(ds, other, otherScope)))
		must(t, "RecordAttempts", s.RecordAttempts(ctx, "xg", []persistence.WebhookAttempt{
			{DeliveryID: "e0", At: at(time.Minute), StatusCode: 200, Result: persistence.AttemptOK, Attempts: 1},
			{DeliveryID: "e2", At: at(time.Minute), StatusCode: 503, Result: persistence.AttemptRetry, Attempts: 1},
		}))
		must(t, "DropDeliveries", s.DropDeliveries(ctx, "xg", []string{"e3"}, at(time.Minute)))
		ids := func(limit int) string {
			got, err := s.ListEndpointDeliveries(ctx, "xg", 3, limit)
			must(t, "ListEndpointDeliveries", err)
			var out []string
			for _, x := range got {
				out = append(out, fmt.Sprintf("%s/%d", x.DeliveryID, x.Attempts))
			}
			return fmt.Sprint(out)
		}
		if got, want := ids(2), "[e1/0 e2/1]"; got != want {
			t.Errorf("limit 2: %s, want %s (finished ones skipped, oldest first)", got, want)
		}
		if got, want := ids(10), "[e1/0 e2/1 e4/0 e5/0]"; got != want {
			t.Errorf("limit 10: %s, want %s (other endpoints and scopes left out)", got, want)
		}
		eps, err := s.QueuedEndpoints(ctx, "xg")
		must(t, "QueuedEndpoints", err)
		if fmt.Sprint(eps) != "[3 4]" {
			t.Errorf("QueuedEndpoints = %v, want [3 4]", eps)
		}
		must(t, "DropEndpointDeliveries", s.DropEndpointDeliveries(ctx, "xg", 3, at(time.Minute)))
		if eps, err = s.QueuedEndpoints(ctx, "xg"); err != nil || fmt.Sprint(eps) != "[4]" {
			t.Errorf("QueuedEndpoints after dropping endpoint 3 = %v, %v; want [4]", eps, err)
		}
	}},
	{"requeue: by id and by time range, finished ones only", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		var ds []persistence.WebhookDelivery
		for i := range 5 {
			ds = append(ds, persistence.WebhookDelivery{Scope: "ct", EndpointID: 7, DeliveryID: fmt.Sprintf("r%d", i),
				Body: []byte("{}"), CreatedAt: at(time.Duration(i) * time.Minute)})
		}
		must(t, "InsertDeliveries", s.InsertDeliveries(ctx, ds))
		must(t, "RecordAttempts", s.RecordAttempts(ctx, "ct", []persistence.WebhookAttempt{
			{DeliveryID: "r0", At: at(time.Hour), StatusCode: 400, Result: persistence.AttemptFailed, Attempts: 1},
			{DeliveryID: "r1", At: at(time.Hour), StatusCode: 200, Result: persistence.AttemptOK, Attempts: 1},
			{DeliveryID: "r2", At: at(time.Hour), StatusCode: 500, Result: persistence.AttemptFailed, Attempts: 3},
			{DeliveryID: "r3", At: at(time.Hour), Error: "timeout", Result: persistence.AttemptFailed, Attempts: 3},
		})) // r4 stays queued
		ids := func(ds []persistence.WebhookDelivery) string {
			var out []string
			for _, d := range ds {
				out = append(out, fmt.Sprintf("%s/%s/%d", d.DeliveryID, d.State, d.Attempts))
			}
			return fmt.Sprint(out)
		}
		got, err := s.RequeueDeliveries(ctx, "ct", 7, persistence.RedeliverFilter{IDs: []string{"r1", "r4", "nope"}})
		must(t, "RequeueDeliveries by id", err)
		if ids(got) != "[r1/queued/0]" {
			t.Errorf("requeued by id: %s, want r1 only (r4 is still queued)", ids(got))
		}
		// Failed ones created in [1 min, 3 min): r2 only (r1 is queued again, r3 too late).
		got, err = s.RequeueDeliveries(ctx, "ct", 7, persistence.RedeliverFilter{Since: at(time.Minute), Until: at(3 * time.Minute)})
		must(t, "RequeueDeliveries by range", err)
		if ids(got) != "[r2/queued/0]" {
			t.Errorf("requeued by range: %s, want r2", ids(got))
		}
		got, err = s.RequeueDeliveries(ctx, "ct", 7, persistence.RedeliverFilter{Since: at(0)})
		must(t, "RequeueDeliveries from the start", err)
		if ids(got) != "[r0/queued/0 r3/queued/0]" {
			t.Errorf("requeued from the start: %s, want r0 and r3", ids(got))
		}
		queued, err := s.ListDeliveries(ctx, "ct")
		must(t, "ListDeliveries", err)
		if ids(queued) != "[r0/queued/0 r1/queued/0 r2/queued/0 r3/queued/0 r4/queued/0]" {
			t.Errorf("queue after requeue: %s", ids(queued))
		}
		log, err := s.DeliveryLog(ctx, "ct", 7, 0, 10)
		must(t, "DeliveryLog", err)
		if len(log) != 5 || len(log[2].Log) != 1 || log[2].FinishedAt != nil {
			t.Errorf("the log keeps the attempts of a requeued delivery and clears its finish: %+v", log)
		}
		if _, err := s.RequeueDeliveries(ctx, "ct", 7, persistence.RedeliverFilter{}); err == nil {
			t.Error("RequeueDeliveries with no ids and no start time: no error")
		}
	}},
	{"bodies: one body shared by many deliveries reads back whole, survives a redelivery, goes with its last delivery", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		shared := []byte(`{"event":"tweet.new","id":"shared"}`)
		equal := []byte(`{"event":"tweet.new","id":"shared"}`) // the same bytes, another slice
		var ds []persistence.WebhookDelivery
		for ep := range int64(3) {
			ds = append(ds, persistence.WebhookDelivery{Scope: "xg", EndpointID: ep, DeliveryID: fmt.Sprint("s", ep), Event: "tweet.new",
				Body: shared, CreatedAt: at(0)})
		}
		ds = append(ds,
			persistence.WebhookDelivery{Scope: "xg", EndpointID: 3, DeliveryID: "s3", Body: equal, CreatedAt: at(0)},
			persistence.WebhookDelivery{Scope: "xg", EndpointID: 0, DeliveryID: "own", Body: []byte(`{"id":"own"}`), CreatedAt: at(0)},
			persistence.WebhookDelivery{Scope: "xg", EndpointID: 0, DeliveryID: "late", Body: shared, CreatedAt: at(2 * time.Hour)},
			persistence.WebhookDelivery{Scope: "xg", EndpointID: 1, DeliveryID: "late2", Body: shared, CreatedAt: at(2 * time.Hour)})
		must(t, "InsertDeliveries", s.InsertDeliveries(ctx, ds))
		bodies := func(what string, got []persistence.WebhookDelivery) string {
			var out []string
			for _, d := range got {
				out = append(out, d.DeliveryID+"="+string(d.Body))
			}
			return fmt.Sprint(out)
		}
		got, err := s.ListDeliveries(ctx, "xg")
		must(t, "ListDeliveries", err)
		want := `[s0={"event":"tweet.new","id":"shared"} s1={"event":"tweet.new","id":"shared"} s2={"event":"tweet.new","id":"shared"} ` +
			`s3={"event":"tweet.new","id":"shared"} own={"id":"own"} late={"event":"tweet.new","id":"shared"} late2={"event":"tweet.new","id":"shared"}]`
		if b := bodies("listed", got); b != want {
			t.Fatalf("bodies listed: %s\nwant %s", b, want)
		}
		if one, err := s.ListEndpointDeliveries(ctx, "xg", 2, 10); err != nil || len(one) != 1 || !bytes.Equal(one[0].Body, shared) {
			t.Fatalf("endpoint 2 read back: %+v, %v", one, err)
		}
		// Delivered, then redelivered: the body is still there.
		var as []persistence.WebhookAttempt
		for _, id := range []string{"s0", "s1", "s2", "s3", "own", "late"} {
			as = append(as, persistence.WebhookAttempt{DeliveryID: id, At: at(time.Second), StatusCode: 200, Result: persistence.AttemptOK, Attempts: 1})
		}
		must(t, "RecordAttempts", s.RecordAttempts(ctx, "xg", as))
		again, err := s.RequeueDeliveries(ctx, "xg", 1, persistence.RedeliverFilter{IDs: []string{"s1"}})
		must(t, "RequeueDeliveries", err)
		if len(again) != 1 || !bytes.Equal(again[0].Body, shared) {
			t.Fatalf("requeued s1: %+v", again)
		}
		if log, err := s.DeliveryLog(ctx, "xg", 0, 0, 10); err != nil || len(log) != 3 || !bytes.Equal(log[2].Body, shared) {
			t.Fatalf("endpoint 0's log: %+v, %v", log, err)
		}
		// The attempt that delivered s1 is still in its log, and the next
		// one follows it.
		attempts := func(what string) string {
			log, err := s.DeliveryLog(ctx, "xg", 1, 0, 10)
			must(t, "DeliveryLog "+what, err)
			for _, e := range log {
				if e.DeliveryID != "s1" {
					continue
				}
				var out []string
				for _, a := range e.Log {
					out = append(out, fmt.Sprintf("%d/%d/%s/%d", a.StatusCode, a.At.Sub(at(0))/time.Second, a.Result, a.Attempts))
				}
				return e.State + fmt.Sprint(out)
			}
			return "none"
		}
		if got := attempts("requeued"); got != "queued[200/1/ok/1]" {
			t.Fatalf("s1 requeued: %s", got)
		}
		must(t, "RecordAttempts s1 again", s.RecordAttempts(ctx, "xg", []persistence.WebhookAttempt{
			{DeliveryID: "s1", At: at(3 * time.Second), StatusCode: 500, Result: persistence.AttemptRetry, Attempts: 1}}))
		if got := attempts("retried"); got != "queued[200/1/ok/1 500/3/retry/2]" {
			t.Fatalf("s1 retried: %s", got)
		}
		// Retention: the old finished deliveries go; their bodies go once
		// nothing points at them (s1 is queued again: its body stays).
		prune := func(kind persistence.Prunable) int {
			n, err := s.Prune(ctx, kind, at(time.Hour), 100)
			must(t, "Prune "+string(kind), err)
			return n
		}
		if n := prune(persistence.PruneBodies); n != 0 {
			t.Fatalf("bodies pruned while their deliveries are stored: %d", n)
		}
		if n := prune(persistence.PruneDeliveries); n != 4 {
			t.Fatalf("old finished deliveries pruned: %d, want s0, s2, s3, own", n)
		}
		if n := prune(persistence.PruneBodies); n != 0 {
			t.Fatalf("bodies pruned while s1 (queued) points at one: %d", n)
		}
		got, err = s.ListDeliveries(ctx, "xg")
		must(t, "ListDeliveries", err)
		if b := bodies("left", got); b != `[s1={"event":"tweet.new","id":"shared"} late2={"event":"tweet.new","id":"shared"}]` {
			t.Fatalf("queued after pruning: %s", b)
		}
		must(t, "RecordAttempts s1", s.RecordAttempts(ctx, "xg", []persistence.WebhookAttempt{
			{DeliveryID: "s1", At: at(4 * time.Second), StatusCode: 204, Latency: 7 * time.Millisecond, Result: persistence.AttemptOK, Attempts: 2}}))
		if got := attempts("delivered again"); got != "delivered[200/1/ok/1 500/3/retry/2 204/4/ok/3]" {
			t.Fatalf("s1 delivered again: %s", got)
		}
		if n := prune(persistence.PruneDeliveries); n != 1 {
			t.Fatalf("s1 pruned: %d", n)
		}
		if n := prune(persistence.PruneBodies); n != 1 {
			t.Fatalf("the old shared body, now unused, pruned: %d, want 1 (the newer one stays)", n)
		}
		got, err = s.ListDeliveries(ctx, "xg")
		must(t, "ListDeliveries", err)
		if b := bodies("left", got); b != `[late2={"event":"tweet.new","id":"shared"}]` {
			t.Fatalf("the newer shared body after pruning: %s", b)
		}
	}},
}
