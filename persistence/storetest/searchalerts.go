package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
)

// searchAlertsTests hold the store to persistence.SearchAlertsStore.
var searchAlertsTests = []test{
	{"sa queries", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		mustAccount(t, s, "a1")
		mustAccount(t, s, "a2")
		q1, err := s.CreateSAQuery(ctx, persistence.SAQuery{AccountID: "a1", Text: "solana etf", Interval: "5m", CreatedAt: at(0)})
		must(t, "CreateSAQuery", err)
		q2, err := s.CreateSAQuery(ctx, persistence.SAQuery{AccountID: "a2", Text: "bitcoin", Interval: "1h", CreatedAt: at(time.Second)})
		must(t, "CreateSAQuery a2", err)
		q3, err := s.CreateSAQuery(ctx, persistence.SAQuery{AccountID: "a1", Text: "solana etf", Interval: "1m", CreatedAt: at(2 * time.Second)})
		must(t, "CreateSAQuery a1 again", err)
		if q1.ID == 0 || q1.ID == q2.ID || q2.ID == q3.ID || q1.ID == q3.ID {
			t.Fatalf("ids %d %d %d", q1.ID, q2.ID, q3.ID)
		}
		all, err := s.ListSAQueries(ctx)
		must(t, "ListSAQueries", err)
		var got []string
		for _, q := range all {
			got = append(got, fmt.Sprintf("%s/%s/%s", q.AccountID, q.Text, q.Interval))
		}
		if fmt.Sprint(got) != "[a1/solana etf/5m a1/solana etf/1m a2/bitcoin/1h]" {
			t.Fatalf("queries %v", got)
		}
		checkTime(t, "CreatedAt", all[2].CreatedAt, at(time.Second))
		checkNotFound(t, "DeleteSAQuery of another account", s.DeleteSAQuery(ctx, "a2", q1.ID))
		must(t, "DeleteSAQuery", s.DeleteSAQuery(ctx, "a1", q1.ID))
		checkNotFound(t, "DeleteSAQuery again", s.DeleteSAQuery(ctx, "a1", q1.ID))
		all, err = s.ListSAQueries(ctx)
		must(t, "ListSAQueries after delete", err)
		if len(all) != 2 || all[0].ID != q3.ID {
			t.Fatalf("after delete: %+v", all)
		}
	}},
}
