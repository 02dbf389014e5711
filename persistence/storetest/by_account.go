package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// byAccountTests hold the store to the per-account reads (the ...Of
// methods), which a cluster's reload of a few accounts uses: each returns
// exactly the entries of the accounts named, as the whole-table read
// orders them.
var byAccountTests = []test{
	{"reads of the accounts named", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		for _, a := range []string{"a1", "a2", "a3"} {
			mustAccount(t, s, a)
		}
		// Named: a1 and a3 (twice, and among 600 unknown ones: several
		// statements); a2's entries must not come back.
		named := []string{"a3", "a1", "a3"}
		for i := range 600 {
			named = append(named, fmt.Sprintf("nobody%03d", i))
		}
		check := func(what string, got []string, err error, want string) {
			t.Helper()
			must(t, what, err)
			if fmt.Sprint(got) != want {
				t.Errorf("%s: %v, want %s", what, got, want)
			}
		}
		for i, a := range []string{"a3", "a2", "a1", "a3"} {
			d := time.Duration(i) * time.Second
			must(t, "AddPFTarget", s.AddPFTarget(ctx, persistence.PFTarget{AccountID: a, Wallet: fmt.Sprint("W", i),
				AlertTypes: []string{"callouts"}, CreatedAt: at(d)}))
			_, err := s.CreateSAQuery(ctx, persistence.SAQuery{AccountID: a, Text: fmt.Sprint("word", i), Interval: "5m", CreatedAt: at(d)})
			must(t, "CreateSAQuery", err)
			must(t, "AddWatchTarget", s.AddWatchTarget(ctx, persistence.WatchTarget{Product: protocol.ProductCW, AccountID: a,
				Item: fmt.Sprint("h", i), CreatedAt: at(d)}))
			_, err = s.PutTarget(ctx, persistence.Target{AccountID: a, Handle: fmt.Sprint("t", i), IsActive: true, CreatedAt: at(d)})
			must(t, "PutTarget", err)
			must(t, "PutChat", s.PutChat(ctx, persistence.Chat{ChatID: int64(10 - i), AccountID: a, Kind: "private", LinkedAt: at(d)}))
		}
		for _, a := range []string{"a1", "a2", "a3"} {
			_, err := s.CreateECAEntry(ctx, persistence.ECAEntry{AccountID: a, Ticker: "T" + a, Source: "api",
				CreatedAt: at(0), ExpiresAt: at(time.Hour)})
			must(t, "CreateECAEntry", err)
			_, err = s.PutWatchWebhook(ctx, protocol.ProductCW, a, "https://x.example/"+a, "s", at(0))
			must(t, "PutWatchWebhook", err)
		}
		old, err := s.CreateECAEntry(ctx, persistence.ECAEntry{AccountID: "a1", Ticker: "OLD", Source: "api",
			CreatedAt: at(0), ExpiresAt: at(time.Minute)})
		must(t, "CreateECAEntry expiring", err)

		pf, err := s.ListPFTargetsOf(ctx, named)
		var got []string
		for _, x := range pf {
			got = append(got, x.AccountID+"/"+x.Wallet)
		}
		check("ListPFTargetsOf", got, err, "[a1/W2 a3/W0 a3/W3]")

		sa, err := s.ListSAQueriesOf(ctx, named)
		got = nil
		for _, x := range sa {
			got = append(got, x.AccountID+"/"+x.Text)
		}
		check("ListSAQueriesOf", got, err, "[a1/word2 a3/word0 a3/word3]")

		eca, err := s.ListActiveECAEntriesOf(ctx, named, at(2*time.Minute))
		got = nil
		for _, x := range eca {
			got = append(got, x.AccountID+"/"+x.Ticker)
			if x.ID == old.ID {
				t.Errorf("ListActiveECAEntriesOf listed an expired entry")
			}
		}
		check("ListActiveECAEntriesOf", got, err, "[a1/Ta1 a3/Ta3]")

		wt, err := s.ListWatchTargetsOf(ctx, protocol.ProductCW, named)
		got = nil
		for _, x := range wt {
			got = append(got, x.AccountID+"/"+x.Item)
		}
		check("ListWatchTargetsOf", got, err, "[a1/h2 a3/h0 a3/h3]")
		wt, err = s.ListWatchTargetsOf(ctx, protocol.ProductCT, named)
		check("ListWatchTargetsOf of another product", nil, err, "[]")
		if len(wt) != 0 {
			t.Errorf("ListWatchTargetsOf ct: %+v", wt)
		}

		wc, err := s.ListWatchConfigsOf(ctx, protocol.ProductCW, named)
		got = nil
		for _, x := range wc {
			got = append(got, x.AccountID+"/"+x.WebhookURL)
		}
		check("ListWatchConfigsOf", got, err, "[a1/https://x.example/a1 a3/https://x.example/a3]")

		tg, err := s.ListTargetsOf(ctx, named)
		got = nil
		for _, x := range tg {
			got = append(got, x.AccountID+"/"+x.Handle)
		}
		check("ListTargetsOf", got, err, "[a1/t2 a3/t0 a3/t3]")

		cs, err := s.ListChatsOf(ctx, named)
		got = nil
		for _, x := range cs {
			got = append(got, fmt.Sprint(x.ChatID, "/", x.AccountID))
		}
		check("ListChatsOf", got, err, "[7/a3 8/a1 10/a3]")

		// No account named: nothing, and no error.
		pf, err = s.ListPFTargetsOf(ctx, nil)
		must(t, "ListPFTargetsOf none", err)
		tg, err2 := s.ListTargetsOf(ctx, []string{})
		must(t, "ListTargetsOf none", err2)
		if len(pf) != 0 || len(tg) != 0 {
			t.Errorf("no account named: %d pf targets, %d targets", len(pf), len(tg))
		}
	}},
}
