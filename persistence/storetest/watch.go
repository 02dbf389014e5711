package storetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// watchTests hold the store to persistence.WatchStore (cw, ct, et).
var watchTests = []test{
	{"targets: add, duplicate, options, list order, delete", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		mustAccount(t, s, "w1")
		mustAccount(t, s, "w2")
		add := func(p protocol.Product, acct, item string, d time.Duration, opts []byte) {
			t.Helper()
			must(t, "AddWatchTarget "+item, s.AddWatchTarget(ctx, persistence.WatchTarget{Product: p, AccountID: acct,
				Item: item, Options: opts, CreatedAt: at(d)}))
		}
		add(protocol.ProductCW, "w2", "zed", 0, nil)
		add(protocol.ProductCW, "w1", "zeta", time.Second, []byte(`{"new_followers":true}`))
		add(protocol.ProductCW, "w1", "alpha", 2*time.Second, nil)
		add(protocol.ProductCT, "w1", "zeta", 3*time.Second, nil) // same item, other product
		err := s.AddWatchTarget(ctx, persistence.WatchTarget{Product: protocol.ProductCW, AccountID: "w1", Item: "zeta", CreatedAt: at(time.Hour)})
		if !errors.Is(err, persistence.ErrExists) {
			t.Fatalf("duplicate AddWatchTarget: err = %v, want ErrExists", err)
		}
		got, err := s.ListWatchTargets(ctx, protocol.ProductCW)
		must(t, "ListWatchTargets", err)
		var order []string
		for _, x := range got {
			order = append(order, x.AccountID+"/"+x.Item)
			if x.Product != protocol.ProductCW {
				t.Errorf("%s: product %q", x.Item, x.Product)
			}
		}
		if fmt.Sprint(order) != "[w1/zeta w1/alpha w2/zed]" {
			t.Fatalf("cw targets in order %v, want [w1/zeta w1/alpha w2/zed]", order)
		}
		if string(got[0].Options) != `{"new_followers":true}` || got[1].Options != nil {
			t.Errorf("options %q and %q, want the JSON and nil", got[0].Options, got[1].Options)
		}
		checkTime(t, "CreatedAt", got[0].CreatedAt, at(time.Second))

		must(t, "SetWatchTargetOptions", s.SetWatchTargetOptions(ctx, protocol.ProductCW, "w1", "alpha", []byte(`{"x":1}`)))
		checkNotFound(t, "SetWatchTargetOptions of an absent target",
			s.SetWatchTargetOptions(ctx, protocol.ProductET, "w1", "alpha", []byte(`{}`)))
		must(t, "DeleteWatchTarget", s.DeleteWatchTarget(ctx, protocol.ProductCW, "w1", "zeta"))
		checkNotFound(t, "second DeleteWatchTarget", s.DeleteWatchTarget(ctx, protocol.ProductCW, "w1", "zeta"))
		got, err = s.ListWatchTargets(ctx, protocol.ProductCW)
		must(t, "ListWatchTargets", err)
		if len(got) != 2 || got[0].Item != "alpha" || string(got[0].Options) != `{"x":1}` {
			t.Fatalf("after delete: %+v", got)
		}
		ct, err := s.ListWatchTargets(ctx, protocol.ProductCT)
		must(t, "ListWatchTargets ct", err)
		if len(ct) != 1 || ct[0].Item != "zeta" {
			t.Fatalf("ct targets %+v, want only zeta (the cw delete must not touch ct)", ct)
		}
	}},
	{"configs: settings and webhook kept apart", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		mustAccount(t, s, "c1")
		mustAccount(t, s, "c2")
		id1, err := s.PutWatchWebhook(ctx, protocol.ProductCW, "c1", "https://a.example/h", "sec1", at(0))
		must(t, "PutWatchWebhook", err)
		must(t, "PutWatchSettings", s.PutWatchSettings(ctx, protocol.ProductCW, "c1", []byte(`{"min_member_count":5}`), at(time.Second)))
		must(t, "PutWatchSettings c2", s.PutWatchSettings(ctx, protocol.ProductCW, "c2", []byte(`{"a":1}`), at(0)))
		must(t, "PutWatchSettings c2 again", s.PutWatchSettings(ctx, protocol.ProductCW, "c2", []byte(`{"a":2}`), at(time.Minute)))
		idCT, err := s.PutWatchWebhook(ctx, protocol.ProductCT, "c1", "https://b.example/", "sec2", at(0))
		must(t, "PutWatchWebhook ct", err)
		if id1 == 0 || idCT == 0 || id1 == idCT {
			t.Errorf("config ids %d (cw) and %d (ct): want two distinct non-zero ids", id1, idCT)
		}
		got, err := s.ListWatchConfigs(ctx, protocol.ProductCW)
		must(t, "ListWatchConfigs", err)
		if len(got) != 2 {
			t.Fatalf("cw configs: %+v", got)
		}
		c1, c2 := got[0], got[1]
		if c1.ID != id1 || c2.ID == 0 || c2.ID == id1 {
			t.Errorf("config ids %d and %d, want %d and another", c1.ID, c2.ID, id1)
		}
		if c1.AccountID != "c1" || c1.WebhookURL != "https://a.example/h" || c1.WebhookSecret != "sec1" || string(c1.Settings) != `{"min_member_count":5}` {
			t.Errorf("c1 config %+v: the settings write must keep the webhook", c1)
		}
		checkTime(t, "c1 UpdatedAt", c1.UpdatedAt, at(time.Second))
		if c2.WebhookURL != "" || c2.WebhookSecret != "" || string(c2.Settings) != `{"a":2}` {
			t.Errorf("c2 config %+v", c2)
		}
		id2, err := s.PutWatchWebhook(ctx, protocol.ProductCW, "c1", "https://c.example/", "sec3", at(time.Hour))
		must(t, "PutWatchWebhook replace", err)
		if id2 != id1 {
			t.Errorf("replacing the webhook changed the config id from %d to %d", id1, id2)
		}
		got, err = s.ListWatchConfigs(ctx, protocol.ProductCW)
		must(t, "ListWatchConfigs", err)
		if got[0].WebhookURL != "https://c.example/" || got[0].WebhookSecret != "sec3" || string(got[0].Settings) != `{"min_member_count":5}` {
			t.Errorf("after webhook replace: %+v: the webhook write must keep the settings", got[0])
		}
		ct, err := s.ListWatchConfigs(ctx, protocol.ProductCT)
		must(t, "ListWatchConfigs ct", err)
		if len(ct) != 1 || ct[0].Settings != nil || ct[0].WebhookSecret != "sec2" {
			t.Errorf("ct configs %+v (settings never set must read back nil)", ct)
		}
	}},
	{"events: newest first, count since, prune keeps the newest", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		ev := func(p protocol.Product, acct string, n int, d time.Duration) persistence.WatchEvent {
			return persistence.WatchEvent{Product: p, AccountID: acct, Kind: "k", Data: []byte(fmt.Sprintf(`{"n":%d}`, n)), CreatedAt: at(d)}
		}
		var evs []persistence.WatchEvent
		for i := range 5 {
			evs = append(evs, ev(protocol.ProductCT, "e1", i, time.Duration(i)*time.Hour))
		}
		evs = append(evs, ev(protocol.ProductCT, "e2", 100, 0), ev(protocol.ProductCW, "e1", 200, 0))
		must(t, "AppendWatchEvents", s.AppendWatchEvents(ctx, evs))
		got, err := s.WatchEvents(ctx, protocol.ProductCT, "e1", 3)
		must(t, "WatchEvents", err)
		var ns []string
		for _, e := range got {
			ns = append(ns, string(e.Data))
			if e.ID == 0 || e.Kind != "k" || e.AccountID != "e1" {
				t.Errorf("event %+v", e)
			}
		}
		if fmt.Sprint(ns) != `[{"n":4} {"n":3} {"n":2}]` {
			t.Fatalf("newest 3: %v", ns)
		}
		checkTime(t, "CreatedAt", got[0].CreatedAt, at(4*time.Hour))
		n, err := s.CountWatchEvents(ctx, protocol.ProductCT, "e1", at(2*time.Hour))
		must(t, "CountWatchEvents", err)
		if n != 3 {
			t.Errorf("count since 2h = %d, want 3 (the bound is inclusive)", n)
		}
		// Everything before 3h goes, except the newest 2 of each account.
		del, err := s.PruneWatchEvents(ctx, protocol.ProductCT, at(3*time.Hour), 2)
		must(t, "PruneWatchEvents", err)
		if del != 3 {
			t.Errorf("pruned %d, want 3 (e1's 0h, 1h, 2h)", del)
		}
		left, err := s.WatchEvents(ctx, protocol.ProductCT, "e1", 0)
		must(t, "WatchEvents", err)
		if len(left) != 2 {
			t.Errorf("e1 keeps %d events, want 2", len(left))
		}
		if e2, _ := s.WatchEvents(ctx, protocol.ProductCT, "e2", 0); len(e2) != 1 {
			t.Errorf("e2 keeps %d events, want 1 (its newest)", len(e2))
		}
		if cw, _ := s.WatchEvents(ctx, protocol.ProductCW, "e1", 0); len(cw) != 1 {
			t.Errorf("cw keeps %d events, want 1 (pruning ct must not touch cw)", len(cw))
		}
		del, err = s.PruneWatchEvents(ctx, protocol.ProductCT, at(time.Hour*100), 0)
		must(t, "PruneWatchEvents all", err)
		if del != 3 {
			t.Errorf("pruned %d, want 3", del)
		}
	}},
	{"states: upsert, last of a key wins, delete, list", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		st := func(p protocol.Product, k, data string, d time.Duration) persistence.WatchState {
			return persistence.WatchState{Product: p, Key: k, Data: []byte(data), UpdatedAt: at(d)}
		}
		must(t, "PutWatchStates", s.PutWatchStates(ctx, []persistence.WatchState{
			st(protocol.ProductCW, "bob", `1`, 0), st(protocol.ProductCW, "al", `2`, 0),
			st(protocol.ProductCW, "bob", `3`, time.Second), st(protocol.ProductET, "bob", `4`, 0),
		}))
		must(t, "PutWatchStates replace", s.PutWatchStates(ctx, []persistence.WatchState{st(protocol.ProductCW, "al", `5`, time.Minute)}))
		got, err := s.ListWatchStates(ctx, protocol.ProductCW)
		must(t, "ListWatchStates", err)
		var kv []string
		for _, x := range got {
			kv = append(kv, x.Key+"="+string(x.Data))
		}
		if fmt.Sprint(kv) != "[al=5 bob=3]" {
			t.Fatalf("cw states %v, want [al=5 bob=3]", kv)
		}
		checkTime(t, "UpdatedAt", got[0].UpdatedAt, at(time.Minute))
		must(t, "DeleteWatchStates", s.DeleteWatchStates(ctx, protocol.ProductCW, []string{"bob", "absent"}))
		got, err = s.ListWatchStates(ctx, protocol.ProductCW)
		must(t, "ListWatchStates", err)
		if len(got) != 1 || got[0].Key != "al" {
			t.Fatalf("after delete: %+v", got)
		}
		et, err := s.ListWatchStates(ctx, protocol.ProductET)
		must(t, "ListWatchStates et", err)
		if len(et) != 1 || string(et[0].Data) != "4" {
			t.Fatalf("et states %+v", et)
		}
	}},
}
