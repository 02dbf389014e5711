package storetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
)

// pumpFunTests hold the store to persistence.PumpFunStore.
var pumpFunTests = []test{
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
}
