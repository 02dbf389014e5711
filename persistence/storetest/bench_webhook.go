package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
)

// BenchWebhookQueue measures what the webhook engine asks of the store per
// delivery when every post goes to `endpoints` webhooks: the write-ahead
// insert (InsertNewDeliveries when the store has it, in batches of about
// 1,000 rows as the engine's writes them) and the outcome that finishes each
// delivery (RecordAttempts, a 2xx). One op is one post. It reports wall and
// process CPU time per delivery; report numbers, never assert on them.
func BenchWebhookQueue(b *testing.B, open func(b *testing.B) persistence.Store) {
	for _, endpoints := range []int{1, 100} {
		b.Run(fmt.Sprintf("endpoints=%d", endpoints), func(b *testing.B) {
			s := open(b)
			ctx := b.Context()
			type newOnly interface {
				InsertNewDeliveries(ctx context.Context, ds []persistence.WebhookDelivery) ([]persistence.WebhookDelivery, error)
			}
			insert := func(ds []persistence.WebhookDelivery) []persistence.WebhookDelivery {
				if q, ok := s.(newOnly); ok {
					fresh, err := q.InsertNewDeliveries(ctx, ds)
					if err != nil {
						b.Fatal(err)
					}
					return fresh
				}
				if err := s.InsertDeliveries(ctx, ds); err != nil {
					b.Fatal(err)
				}
				return ds
			}
			postsPerWrite := max(1, 1000/endpoints)
			body := []byte(fmt.Sprintf(`{"event":"tweet.new","data":{"text":"%0900d"}}`, 0))
			var pending []persistence.WebhookDelivery
			posts := 0
			flush := func() {
				fresh := insert(pending)
				pending = pending[:0]
				as := make([]persistence.WebhookAttempt, len(fresh))
				for i, d := range fresh {
					as[i] = persistence.WebhookAttempt{DeliveryID: d.DeliveryID, Seq: d.Seq, At: d.CreatedAt, StatusCode: 204,
						Latency: time.Millisecond, Result: persistence.AttemptOK, Attempts: 1}
				}
				if err := s.RecordAttempts(ctx, "xg", as); err != nil {
					b.Fatal(err)
				}
			}
			cpu0 := processCPU()
			for b.Loop() {
				posts++
				post := append([]byte(nil), body...) // one body per post, shared by its deliveries
				for ep := range endpoints {
					// Tweet Alerts' ids: endpoint and post (tweetalerts.DeliveryID).
					id := fmt.Sprintf("tw-%d-%d", ep, 1_900_000_000_000_000_000+posts)
					pending = append(pending, persistence.WebhookDelivery{Scope: "xg", EndpointID: int64(ep), DeliveryID: id, Body: post,
						CreatedAt: at(time.Duration(posts) * time.Millisecond), Event: "tweet.new", State: persistence.DeliveryQueued})
				}
				if posts%postsPerWrite == 0 {
					flush()
				}
			}
			if len(pending) > 0 {
				flush()
			}
			deliveries := float64(b.N * endpoints)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/deliveries, "ns/delivery")
			b.ReportMetric(float64((processCPU()-cpu0).Nanoseconds())/deliveries, "cpu-ns/delivery")
		})
	}
}
