package main

import (
	"fmt"
	"syscall"
	"testing"
	"time"
)

// TestE2EConsumerWebhookCrash kills the engine (SIGKILL) while webhook
// deliveries are queued: some waiting out their backoff after a 503, some
// in flight to a receiver that hangs, some not yet attempted. After a
// restart on the same store every one of them arrives, with the delivery id
// it had before.
func TestE2EConsumerWebhookCrash(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		opts := serverOpts{dataDir: t.TempDir(), dbURL: m.dbURL(t), adminToken: "adm_e2e_" + randomHex(16)}
		// A 1-hour backoff keeps failed deliveries queued; a 30 s timeout
		// keeps hung ones in flight.
		s := startServerEnv(t, opts, cxEnv("WebhookBackoff=1h|1h,WebhookTimeout=30s")...)
		k := s.cxXG(t, "pro")
		hs := s.cxUsers(t, 1, false)
		s.cxTrack(t, k.key, hs[0])
		down := newCXReceiver(t, func(int) int { return 503 })
		stuck := newCXReceiver(t, func(int) int { return 0 })
		wDown := s.cxCreateWebhook(t, k.key, down.srv.URL, nil)
		wStuck := s.cxCreateWebhook(t, k.key, stuck.srv.URL, nil)

		const n = 6 // the stuck endpoint holds 4 in flight; 2 stay queued
		var ids []string
		for i := range n {
			ids = append(ids, s.cxPost(t, hs[0], fmt.Sprint("crash ", i), time.Second)["id"].(string))
		}
		// Every post was stored (its failed first attempt reached the down
		// receiver, and both webhooks' deliveries of a post are written in
		// one transaction); the stuck receiver holds its share.
		before := map[string]string{} // tweet id -> delivery id at the down receiver
		for _, id := range ids {
			h := down.waitHits(t, id, 1)[0]
			before[id] = h.header.Get("X-Delivery-Id")
		}
		eventually(t, 20*time.Second, "4 deliveries in flight to the stuck receiver", func() (bool, string) {
			return len(stuck.got()) >= 4, fmt.Sprint(len(stuck.got()))
		})
		if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		<-s.exited
		s.stopped = true

		down.setAnswer(func(int) int { return 200 })
		stuck.setAnswer(func(int) int { return 200 })
		s2 := startServerEnv(t, opts, cxEnv("WebhookBackoff=50ms|50ms,WebhookTimeout=5s")...)
		for _, r := range []struct {
			name string
			rcv  *cxReceiver
		}{{"down", down}, {"stuck", stuck}} {
			for _, id := range ids {
				eventually(t, 30*time.Second, r.name+" receiver: post "+id+" delivered after the restart", func() (bool, string) {
					for _, h := range r.rcv.byTweet(t, id) {
						if h.status == 200 {
							return true, ""
						}
					}
					return false, fmt.Sprint(len(r.rcv.byTweet(t, id)), " attempts")
				})
			}
		}
		for _, id := range ids {
			for _, h := range down.byTweet(t, id) {
				if got := h.header.Get("X-Delivery-Id"); got != before[id] {
					t.Errorf("post %s: delivery id %q after the restart, %q before", id, got, before[id])
				}
				if !cxVerify(wDown.str(t, "secret"), h.body, h.header.Get("X-Signature")) {
					t.Errorf("post %s: bad signature after the restart", id)
				}
			}
			for _, h := range stuck.byTweet(t, id) {
				if !cxVerify(wStuck.str(t, "secret"), h.body, h.header.Get("X-Signature")) {
					t.Errorf("post %s: bad signature at the stuck receiver", id)
				}
			}
		}
		// The queue is empty once all arrived: the webhooks are healthy.
		for _, w := range []obj{wDown, wStuck} {
			eventually(t, 10*time.Second, "failures reset", func() (bool, string) {
				o := s2.cxWebhookByID(t, k.key, w.num(t, "id"))
				return o != nil && o.num(t, "consecutive_failures") == 0, fmt.Sprint(o)
			})
		}
	})
}
