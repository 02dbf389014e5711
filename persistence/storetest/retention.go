package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
)

// retentionTests cover Prune: rows older than the cut go, oldest first, at
// most limit per call; newer rows and queued webhook deliveries stay.
var retentionTests = []test{
	{"prune every kind by age", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		old, cut, fresh := at(0), at(time.Hour), at(2*time.Hour)
		mustAccount(t, s, "ret")
		must(t, "SavePosts", s.SavePosts(ctx, []persistence.Post{
			post("101", "ret", old, old, "{}"), post("102", "ret", old.Add(time.Second), old, "{}"), post("103", "ret", fresh, fresh, "{}")}))
		must(t, "AppendObservations", s.AppendObservations(ctx, []persistence.ObservationRecord{
			{Kind: "user", Key: "1", Data: []byte("{}"), DetectedAt: old}, {Kind: "user", Key: "2", Data: []byte("{}"), DetectedAt: fresh}}))
		must(t, "AppendTrace", s.AppendTrace(ctx, []persistence.TraceRecord{
			{EventID: "e1", Event: "social.post.new", Handle: "ret", EventTime: old, Data: []byte("{}")},
			{EventID: "e2", Event: "social.post.new", Handle: "ret", EventTime: fresh, Data: []byte("{}")}}))
		must(t, "AppendProfileHistory", s.AppendProfileHistory(ctx, []persistence.ProfileCounts{
			{UserID: "u1", Followers: 1, ScrapedAt: old}, {UserID: "u1", Followers: 2, ScrapedAt: fresh}}))
		must(t, "ApplyFollowEdges", s.ApplyFollowEdges(ctx, []persistence.FollowEdgeUpdate{{Handle: "ret", Relation: "following", At: old,
			Changes: []persistence.SocialChange{
				{Handle: "ret", Relation: "following", TargetID: "9", TargetScreenName: "nine", Change: "new", ChangedAt: old},
				{Handle: "ret", Relation: "following", TargetID: "8", TargetScreenName: "eight", Change: "new", ChangedAt: fresh}}}}))
		must(t, "InsertDeliveries", s.InsertDeliveries(ctx, []persistence.WebhookDelivery{
			{Scope: "xg", EndpointID: 1, DeliveryID: "done", Body: []byte("{}"), CreatedAt: old},
			{Scope: "xg", EndpointID: 1, DeliveryID: "queued", Body: []byte("{}"), CreatedAt: old},
			{Scope: "xg", EndpointID: 1, DeliveryID: "new", Body: []byte("{}"), CreatedAt: fresh}}))
		must(t, "RecordAttempts", s.RecordAttempts(ctx, "xg", []persistence.WebhookAttempt{
			{DeliveryID: "done", At: old, StatusCode: 503, Result: persistence.AttemptRetry, Attempts: 1},
			{DeliveryID: "done", At: old, StatusCode: 200, Result: persistence.AttemptOK, Attempts: 2},
			{DeliveryID: "new", At: fresh, StatusCode: 200, Result: persistence.AttemptOK, Attempts: 1}}))

		want := map[persistence.Prunable]int{persistence.PrunePosts: 2, persistence.PruneObservations: 1, persistence.PruneTrace: 1,
			persistence.PruneProfileHistory: 1, persistence.PruneSocialChanges: 1, persistence.PruneDeliveries: 1, persistence.PruneAttempts: 1}
		for _, kind := range persistence.Prunables {
			// One row per call: the oldest first, then none once all old ones went.
			total := 0
			for {
				n, err := s.Prune(ctx, kind, cut, 1)
				must(t, fmt.Sprintf("Prune %s", kind), err)
				if n == 0 {
					break
				}
				if n != 1 {
					t.Fatalf("Prune %s with limit 1 deleted %d", kind, n)
				}
				if total++; total > want[kind] {
					t.Fatalf("Prune %s deleted more than the %d old rows", kind, want[kind])
				}
			}
			if total != want[kind] {
				t.Errorf("Prune %s deleted %d rows, want %d", kind, total, want[kind])
			}
		}

		// What is left: the fresh rows, and the queued delivery however old.
		if _, err := s.PostByID(ctx, "101"); err == nil {
			t.Error("old post 101 still stored")
		}
		if _, err := s.PostByID(ctx, "103"); err != nil {
			t.Errorf("fresh post 103: %v", err)
		}
		if obs, err := s.ListObservations(ctx, "user", old, 10); err != nil || len(obs) != 1 || obs[0].Key != "2" {
			t.Errorf("observations left: %+v, %v", obs, err)
		}
		if tr, err := s.TraceWindow(ctx, "ret", old, fresh.Add(time.Second), 10); err != nil || len(tr) != 1 || tr[0].EventID != "e2" {
			t.Errorf("trace left: %+v, %v", tr, err)
		}
		if h, err := s.ProfileHistory(ctx, "u1", 10, 0); err != nil || len(h) != 1 || h[0].Followers != 2 {
			t.Errorf("profile history left: %+v, %v", h, err)
		}
		if d, err := s.SocialDiff(ctx, "ret", []string{"following"}, "new", old, 10); err != nil || len(d) != 1 || d[0].TargetID != "8" {
			t.Errorf("social changes left: %+v, %v", d, err)
		}
		log, err := s.DeliveryLog(ctx, "xg", 1, 0, 10)
		must(t, "DeliveryLog", err)
		if len(log) != 2 || log[0].DeliveryID != "new" || len(log[0].Log) != 1 || log[1].DeliveryID != "queued" {
			t.Errorf("deliveries left: %+v", log)
		}
		if _, err := s.Prune(ctx, "nope", cut, 1); err == nil {
			t.Error("Prune of an unknown kind: no error")
		}
	}},
}
