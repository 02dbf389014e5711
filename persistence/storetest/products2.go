package storetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// products2Tests hold the store to persistence.ProductStore2 (Trending,
// PumpFun, ECA, Search Alerts).
var products2Tests = []test{
	{"stored webhooks", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		mustAccount(t, s, "a1")
		_, err := s.GetStoredWebhook(ctx, "a1", protocol.ProductPumpFun)
		checkNotFound(t, "GetStoredWebhook before any", err)
		must(t, "PutStoredWebhook", s.PutStoredWebhook(ctx, persistence.StoredWebhook{AccountID: "a1",
			Product: protocol.ProductPumpFun, URL: ptr("https://hooks.example.com/pf"), UpdatedAt: at(0)}))
		must(t, "PutStoredWebhook sa", s.PutStoredWebhook(ctx, persistence.StoredWebhook{AccountID: "a1",
			Product: protocol.ProductSA, URL: ptr("https://hooks.example.com/sa"), UpdatedAt: at(time.Second)}))
		w, err := s.GetStoredWebhook(ctx, "a1", protocol.ProductPumpFun)
		must(t, "GetStoredWebhook", err)
		if w.URL == nil || *w.URL != "https://hooks.example.com/pf" || w.Product != protocol.ProductPumpFun || w.AccountID != "a1" {
			t.Fatalf("webhook %+v", w)
		}
		checkTime(t, "UpdatedAt", w.UpdatedAt, at(0))
		must(t, "PutStoredWebhook clear", s.PutStoredWebhook(ctx, persistence.StoredWebhook{AccountID: "a1",
			Product: protocol.ProductPumpFun, UpdatedAt: at(time.Minute)}))
		w, err = s.GetStoredWebhook(ctx, "a1", protocol.ProductPumpFun)
		must(t, "GetStoredWebhook cleared", err)
		if w.URL != nil {
			t.Errorf("cleared webhook URL = %q, want nil", *w.URL)
		}
		checkTime(t, "UpdatedAt after clear", w.UpdatedAt, at(time.Minute))
		w, err = s.GetStoredWebhook(ctx, "a1", protocol.ProductSA)
		must(t, "GetStoredWebhook sa", err)
		if w.URL == nil || *w.URL != "https://hooks.example.com/sa" {
			t.Errorf("sa webhook changed with pf's: %+v", w)
		}
	}},
	{"trending categories", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		mustAccount(t, s, "a1")
		got, err := s.TrendingCategories(ctx, "a1")
		must(t, "TrendingCategories before any", err)
		if got != nil {
			t.Fatalf("categories before any = %v, want nil", got)
		}
		must(t, "PutTrendingCategories", s.PutTrendingCategories(ctx, "a1", []string{"crypto", "news"}, at(0)))
		got, err = s.TrendingCategories(ctx, "a1")
		must(t, "TrendingCategories", err)
		if fmt.Sprint(got) != "[crypto news]" {
			t.Fatalf("categories = %v", got)
		}
		must(t, "PutTrendingCategories empty", s.PutTrendingCategories(ctx, "a1", nil, at(time.Second)))
		got, err = s.TrendingCategories(ctx, "a1")
		must(t, "TrendingCategories after clear", err)
		if got != nil {
			t.Fatalf("categories after clear = %v, want nil", got)
		}
	}},
	{"pf targets", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		mustAccount(t, s, "a1")
		mustAccount(t, s, "a2")
		tg := func(acc, wallet string, d time.Duration, types ...string) persistence.PFTarget {
			return persistence.PFTarget{AccountID: acc, Wallet: wallet, Label: "label " + wallet, AlertTypes: types, CreatedAt: at(d)}
		}
		must(t, "AddPFTarget", s.AddPFTarget(ctx, tg("a1", "W1", 0, "livestream", "graduation")))
		must(t, "AddPFTarget a2", s.AddPFTarget(ctx, tg("a2", "W1", time.Second, "callouts")))
		must(t, "AddPFTarget W2", s.AddPFTarget(ctx, tg("a1", "W2", 2*time.Second, "token_launch")))
		if err := s.AddPFTarget(ctx, tg("a1", "W1", 3*time.Second, "callouts")); !errors.Is(err, persistence.ErrExists) {
			t.Fatalf("duplicate AddPFTarget: err = %v, want ErrExists", err)
		}
		all, err := s.ListPFTargets(ctx)
		must(t, "ListPFTargets", err)
		var got []string
		for _, x := range all {
			got = append(got, fmt.Sprintf("%s/%s/%s%v", x.AccountID, x.Wallet, x.Label, x.AlertTypes))
		}
		if want := "[a1/W1/label W1[livestream graduation] a1/W2/label W2[token_launch] a2/W1/label W1[callouts]]"; fmt.Sprint(got) != want {
			t.Fatalf("targets %v, want %s", got, want)
		}
		checkTime(t, "CreatedAt", all[0].CreatedAt, at(0))
		must(t, "DeletePFTarget", s.DeletePFTarget(ctx, "a1", "W1"))
		checkNotFound(t, "DeletePFTarget again", s.DeletePFTarget(ctx, "a1", "W1"))
		all, err = s.ListPFTargets(ctx)
		must(t, "ListPFTargets after delete", err)
		if len(all) != 2 {
			t.Fatalf("after delete: %d targets, want 2", len(all))
		}
	}},
	{"pf events keep the newest", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		ev := func(acc string, i int) persistence.PFEvent {
			return persistence.PFEvent{AccountID: acc, Wallet: "W", Mint: fmt.Sprintf("M%d", i), TokenName: "Tok",
				TokenSymbol: "TOK", EventType: "token_launched", DetectedAt: at(time.Duration(i) * time.Second), DeliveryLatencyMS: int64(i)}
		}
		var batch []persistence.PFEvent
		for i := range 4 {
			batch = append(batch, ev("a1", i), ev("a2", i))
		}
		must(t, "AppendPFEvents", s.AppendPFEvents(ctx, batch, 3))
		must(t, "AppendPFEvents more", s.AppendPFEvents(ctx, []persistence.PFEvent{ev("a1", 4)}, 3))
		got, err := s.ListPFEvents(ctx, "a1", 50)
		must(t, "ListPFEvents", err)
		var mints []string
		for _, e := range got {
			mints = append(mints, e.Mint)
		}
		if fmt.Sprint(mints) != "[M4 M3 M2]" {
			t.Fatalf("a1 events %v, want [M4 M3 M2]", mints)
		}
		e := got[0]
		if e.AccountID != "a1" || e.Wallet != "W" || e.TokenName != "Tok" || e.TokenSymbol != "TOK" ||
			e.EventType != "token_launched" || e.DeliveryLatencyMS != 4 {
			t.Errorf("event %+v", e)
		}
		checkTime(t, "DetectedAt", e.DetectedAt, at(4*time.Second))
		got, err = s.ListPFEvents(ctx, "a2", 2)
		must(t, "ListPFEvents a2", err)
		if len(got) != 2 || got[0].Mint != "M3" || got[1].Mint != "M2" {
			t.Fatalf("a2 events %+v", got)
		}
		got, err = s.ListPFEvents(ctx, "nobody", 50)
		must(t, "ListPFEvents nobody", err)
		if len(got) != 0 {
			t.Fatalf("events of an unknown account: %d", len(got))
		}
	}},
	{"eca entries and matches", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		mustAccount(t, s, "a1")
		mustAccount(t, s, "a2")
		e1, err := s.CreateECAEntry(ctx, persistence.ECAEntry{AccountID: "a1", Ticker: "WIF", TokenName: "Dog Wif Hat",
			Source: "api", CreatedAt: at(0), ExpiresAt: at(4 * time.Hour)})
		must(t, "CreateECAEntry", err)
		if e1.ID == 0 || e1.State != persistence.ECAActive || e1.Ticker != "WIF" || e1.TokenName != "Dog Wif Hat" ||
			e1.ContractAddress != "" || e1.CreatorAddress != "" || e1.Source != "api" {
			t.Fatalf("created entry %+v", e1)
		}
		checkTime(t, "ExpiresAt", e1.ExpiresAt, at(4*time.Hour))
		e2, err := s.CreateECAEntry(ctx, persistence.ECAEntry{AccountID: "a2", CreatorAddress: "CRE",
			Source: "api", CreatedAt: at(time.Hour), ExpiresAt: at(5 * time.Hour)})
		must(t, "CreateECAEntry a2", err)
		if e2.ID == e1.ID {
			t.Fatalf("two entries share id %d", e1.ID)
		}
		act, err := s.ListActiveECAEntries(ctx, at(4*time.Hour-time.Millisecond))
		must(t, "ListActiveECAEntries", err)
		if len(act) != 2 || act[0].ID != e1.ID || act[1].ID != e2.ID {
			t.Fatalf("active %+v", act)
		}
		act, err = s.ListActiveECAEntries(ctx, at(4*time.Hour))
		must(t, "ListActiveECAEntries at expiry", err)
		if len(act) != 1 || act[0].ID != e2.ID {
			t.Fatalf("active at e1's expiry: %+v, want only e2", act)
		}
		checkNotFound(t, "EndECAEntry of another account", s.EndECAEntry(ctx, "a2", e1.ID, persistence.ECARemoved, at(time.Minute)))
		m := persistence.ECAMatch{AccountID: "a1", EntryID: e1.ID, MatchedAt: at(time.Minute), Data: []byte(`{"match_type":"ticker"}`)}
		must(t, "RecordECAMatch", s.RecordECAMatch(ctx, m))
		checkNotFound(t, "RecordECAMatch twice", s.RecordECAMatch(ctx, m))
		checkNotFound(t, "EndECAEntry after match", s.EndECAEntry(ctx, "a1", e1.ID, persistence.ECARemoved, at(time.Minute)))
		must(t, "EndECAEntry", s.EndECAEntry(ctx, "a2", e2.ID, persistence.ECARemoved, at(2*time.Hour)))
		act, err = s.ListActiveECAEntries(ctx, at(0))
		must(t, "ListActiveECAEntries after end", err)
		if len(act) != 0 {
			t.Fatalf("active after match and removal: %+v", act)
		}
		e3, err := s.CreateECAEntry(ctx, persistence.ECAEntry{AccountID: "a1", ContractAddress: "MINT", Source: "api",
			CreatedAt: at(2 * time.Hour), ExpiresAt: at(6 * time.Hour)})
		must(t, "CreateECAEntry e3", err)
		must(t, "RecordECAMatch e3", s.RecordECAMatch(ctx, persistence.ECAMatch{AccountID: "a1", EntryID: e3.ID,
			MatchedAt: at(3 * time.Hour), Data: []byte(`{"n":3}`)}))
		ms, err := s.ListECAMatches(ctx, "a1", at(0))
		must(t, "ListECAMatches", err)
		if len(ms) != 2 || ms[0].EntryID != e3.ID || ms[1].EntryID != e1.ID || string(ms[1].Data) != `{"match_type":"ticker"}` {
			t.Fatalf("matches %+v", ms)
		}
		checkTime(t, "MatchedAt", ms[0].MatchedAt, at(3*time.Hour))
		ms, err = s.ListECAMatches(ctx, "a1", at(time.Minute+time.Millisecond))
		must(t, "ListECAMatches since", err)
		if len(ms) != 1 || ms[0].EntryID != e3.ID {
			t.Fatalf("matches since: %+v", ms)
		}
		n, err := s.CountECAMatches(ctx, "a1")
		must(t, "CountECAMatches", err)
		if n != 2 {
			t.Errorf("CountECAMatches = %d, want 2", n)
		}
		n, err = s.CountECAMatches(ctx, "a2")
		must(t, "CountECAMatches a2", err)
		if n != 0 {
			t.Errorf("CountECAMatches a2 = %d, want 0", n)
		}
	}},
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
