package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
)

func mustAccount(t *testing.T, s persistence.Store, id string) {
	t.Helper()
	_, err := s.CreateAccount(t.Context(), id, base)
	must(t, "CreateAccount", err)
}

var targetTests = []test{
	{"put, update, list, delete", func(t *testing.T, s persistence.Store) {
		mustAccount(t, s, "a1")
		mustAccount(t, s, "a2")
		ctx := t.Context()
		t1, err := s.PutTarget(ctx, persistence.Target{AccountID: "a1", Handle: "whale", ScreenName: "WHALE", DisplayName: "", IsActive: true, CreatedAt: at(0)})
		must(t, "PutTarget", err)
		if t1.ID == 0 || t1.SocialUserID != nil || !t1.IsActive || t1.ScreenName != "WHALE" {
			t.Fatalf("inserted target: %+v", t1)
		}
		_, err = s.PutTarget(ctx, persistence.Target{AccountID: "a2", Handle: "whale", IsActive: true, CreatedAt: at(time.Second)})
		must(t, "PutTarget a2", err)
		_, err = s.PutTarget(ctx, persistence.Target{AccountID: "a1", Handle: "degen", IsActive: true, CreatedAt: at(2 * time.Second)})
		must(t, "PutTarget degen", err)
		up := t1
		up.SocialUserID, up.DisplayName, up.IsActive, up.ScreenName = ptr("42"), "Whale", false, "Whale"
		up.CreatedAt = at(time.Hour) // ignored on update
		got, err := s.PutTarget(ctx, up)
		must(t, "PutTarget update", err)
		if got.ID != t1.ID || got.SocialUserID == nil || *got.SocialUserID != "42" || got.DisplayName != "Whale" || got.IsActive || got.ScreenName != "Whale" {
			t.Fatalf("updated target: %+v", got)
		}
		checkTime(t, "CreatedAt kept", got.CreatedAt, at(0))
		all, err := s.ListAllTargets(ctx)
		must(t, "ListAllTargets", err)
		var order []string
		for _, x := range all {
			order = append(order, x.AccountID+"/"+x.Handle)
		}
		if fmt.Sprint(order) != "[a1/whale a1/degen a2/whale]" {
			t.Fatalf("order %v", order)
		}
		must(t, "DeleteTarget", s.DeleteTarget(ctx, "a1", "whale"))
		if err := s.DeleteTarget(ctx, "a1", "whale"); !errors.Is(err, persistence.ErrNotFound) {
			t.Fatalf("second delete: %v", err)
		}
		all, err = s.ListAllTargets(ctx)
		must(t, "ListAllTargets", err)
		if len(all) != 2 {
			t.Fatalf("after delete: %d targets", len(all))
		}
	}},
	{"write many in one transaction", func(t *testing.T, s persistence.Store) {
		mustAccount(t, s, "a1")
		mustAccount(t, s, "a2")
		ctx := t.Context()
		old, err := s.PutTarget(ctx, persistence.Target{AccountID: "a1", Handle: "old", IsActive: true, CreatedAt: at(0)})
		must(t, "PutTarget", err)
		paused, err := s.PutTarget(ctx, persistence.Target{AccountID: "a2", Handle: "paused", CreatedAt: at(time.Second)})
		must(t, "PutTarget", err)
		got, err := s.WriteTargets(ctx, nil, nil)
		if err != nil || len(got) != 0 {
			t.Fatalf("empty write: %v, %v", got, err)
		}
		// Out of key order on purpose: the answer follows the order given.
		put := []persistence.Target{
			{AccountID: "a2", Handle: "zeta", ScreenName: "ZeTa", DisplayName: "Zeta", SocialUserID: ptr("9"), IsActive: true, CreatedAt: at(2 * time.Second)},
			{AccountID: "a1", Handle: "new", SocialUserID: ptr("7"), IsActive: true, CreatedAt: at(3 * time.Second)},
			{AccountID: "a2", Handle: "paused", DisplayName: "P", IsActive: true, CreatedAt: at(time.Hour)},
		}
		got, err = s.WriteTargets(ctx, put, []persistence.TargetKey{{AccountID: "a1", Handle: "old"}, {AccountID: "a1", Handle: "never"}})
		must(t, "WriteTargets", err)
		if len(got) != 3 {
			t.Fatalf("WriteTargets returned %d targets, want 3", len(got))
		}
		for i, g := range got {
			if g.AccountID != put[i].AccountID || g.Handle != put[i].Handle || g.ID == 0 || g.DisplayName != put[i].DisplayName || !g.IsActive ||
				g.ScreenName != put[i].ScreenName {
				t.Errorf("returned %d: %+v, want the stored form of %+v", i, g, put[i])
			}
		}
		if got[2].ID != paused.ID {
			t.Errorf("updated target got id %d, want %d", got[2].ID, paused.ID)
		}
		checkTime(t, "updated CreatedAt kept", got[2].CreatedAt, at(time.Second))
		checkTime(t, "inserted CreatedAt", got[1].CreatedAt, at(3*time.Second))
		if got[1].SocialUserID == nil || *got[1].SocialUserID != "7" || got[2].SocialUserID != nil {
			t.Errorf("social ids: %v %v", got[1].SocialUserID, got[2].SocialUserID)
		}
		if got[0].ID == got[1].ID || got[1].ID == old.ID {
			t.Errorf("ids not fresh: %d %d (old %d)", got[0].ID, got[1].ID, old.ID)
		}
		all, err := s.ListAllTargets(ctx)
		must(t, "ListAllTargets", err)
		var keys []string
		for _, x := range all {
			keys = append(keys, fmt.Sprintf("%s/%s/%v/%s", x.AccountID, x.Handle, x.IsActive, x.ShownName()))
		}
		if fmt.Sprint(keys) != "[a1/new/true/new a2/paused/true/paused a2/zeta/true/ZeTa]" {
			t.Fatalf("after WriteTargets: %v", keys)
		}
	}},
	{"write many is all or nothing", func(t *testing.T, s persistence.Store) {
		mustAccount(t, s, "a1")
		ctx := t.Context()
		_, err := s.PutTarget(ctx, persistence.Target{AccountID: "a1", Handle: "keep", IsActive: true, CreatedAt: at(0)})
		must(t, "PutTarget", err)
		// The second row names an account that does not exist.
		_, err = s.WriteTargets(ctx, []persistence.Target{
			{AccountID: "a1", Handle: "fine", IsActive: true, CreatedAt: at(0)},
			{AccountID: "nobody", Handle: "x", IsActive: true, CreatedAt: at(0)},
		}, []persistence.TargetKey{{AccountID: "a1", Handle: "keep"}})
		if err == nil {
			t.Fatal("WriteTargets with an unknown account succeeded")
		}
		all, err := s.ListAllTargets(ctx)
		must(t, "ListAllTargets", err)
		if len(all) != 1 || all[0].Handle != "keep" {
			t.Fatalf("a failed WriteTargets left %+v", all)
		}
	}},
	{"write many after its context ended writes nothing", func(t *testing.T, s persistence.Store) {
		// The embedded store runs the rows without the context (see
		// writeTargetsByRow); the transaction must still honour it.
		mustAccount(t, s, "a1")
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := s.WriteTargets(ctx, []persistence.Target{{AccountID: "a1", Handle: "late", IsActive: true, CreatedAt: at(0)}}, nil); err == nil {
			t.Fatal("WriteTargets with an ended context succeeded")
		}
		all, err := s.ListAllTargets(t.Context())
		must(t, "ListAllTargets", err)
		if len(all) != 0 {
			t.Fatalf("a WriteTargets with an ended context left %+v", all)
		}
	}},
	{"write many rows", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		var put []persistence.Target
		for a := range 3 {
			id := fmt.Sprintf("acct%d", a)
			mustAccount(t, s, id)
			for h := range 700 { // more than one multi-row statement
				put = append(put, persistence.Target{AccountID: id, Handle: fmt.Sprintf("h%04d", h), IsActive: true, CreatedAt: at(0)})
			}
		}
		got, err := s.WriteTargets(ctx, put, nil)
		must(t, "WriteTargets", err)
		ids := map[int64]bool{}
		for i, g := range got {
			if g.AccountID != put[i].AccountID || g.Handle != put[i].Handle || ids[g.ID] {
				t.Fatalf("row %d: %+v for %s/%s", i, g, put[i].AccountID, put[i].Handle)
			}
			ids[g.ID] = true
		}
		var del []persistence.TargetKey
		for _, p := range put[:1500] {
			del = append(del, persistence.TargetKey{AccountID: p.AccountID, Handle: p.Handle})
		}
		_, err = s.WriteTargets(ctx, nil, del)
		must(t, "WriteTargets delete", err)
		all, err := s.ListAllTargets(ctx)
		must(t, "ListAllTargets", err)
		if len(all) != len(put)-1500 {
			t.Fatalf("%d targets left, want %d", len(all), len(put)-1500)
		}
	}},
	{"write rows with their ids", func(t *testing.T, s persistence.Store) {
		mustAccount(t, s, "a1")
		mustAccount(t, s, "a2")
		ctx := t.Context()
		uid := "42"
		row := func(id int64, acct, handle string, active bool) persistence.Target {
			return persistence.Target{ID: id, AccountID: acct, Handle: handle, ScreenName: "", IsActive: active, CreatedAt: at(time.Duration(id) * time.Second)}
		}
		must(t, "WriteTargetRows", s.WriteTargetRows(ctx, []persistence.Target{
			row(7, "a1", "whale", true), row(3, "a1", "degen", true), row(9, "a2", "whale", false),
		}, nil))
		// An update at a key (same id), a key stored with another id (a
		// target removed and added again), a deletion, and a new row.
		upd := row(7, "a1", "whale", false)
		upd.SocialUserID, upd.DisplayName, upd.ScreenName = &uid, "Whale", "WHALE"
		must(t, "WriteTargetRows again", s.WriteTargetRows(ctx, []persistence.Target{
			upd, row(12, "a2", "whale", true), row(13, "a2", "new", true),
		}, []persistence.TargetKey{{AccountID: "a1", Handle: "degen"}, {AccountID: "a1", Handle: "absent"}}))
		all, err := s.ListAllTargets(ctx)
		must(t, "ListAllTargets", err)
		var got []string
		for _, x := range all {
			sid := "-"
			if x.SocialUserID != nil {
				sid = *x.SocialUserID
			}
			got = append(got, fmt.Sprintf("%d %s/%s %v %s %q %s", x.ID, x.AccountID, x.Handle, x.IsActive, sid, x.DisplayName, x.ShownName()))
			checkTime(t, "CreatedAt", x.CreatedAt, at(time.Duration(x.ID)*time.Second))
		}
		want := `[7 a1/whale false 42 "Whale" WHALE 12 a2/whale true - "" whale 13 a2/new true - "" new]`
		if fmt.Sprint(got) != want {
			t.Fatalf("after WriteTargetRows:\n got %v\nwant %s", got, want)
		}
		// Ids the store generates continue above the given ones.
		gen, err := s.PutTarget(ctx, persistence.Target{AccountID: "a1", Handle: "later", IsActive: true, CreatedAt: at(0)})
		must(t, "PutTarget", err)
		if gen.ID <= 13 {
			t.Fatalf("generated id %d, want above 13", gen.ID)
		}
		// All or nothing: an unknown account fails the whole write.
		if err := s.WriteTargetRows(ctx, []persistence.Target{row(20, "a1", "fine", true), row(21, "nobody", "x", true)},
			[]persistence.TargetKey{{AccountID: "a2", Handle: "new"}}); err == nil {
			t.Fatal("WriteTargetRows with an unknown account succeeded")
		}
		after, err := s.ListAllTargets(ctx)
		must(t, "ListAllTargets", err)
		if len(after) != len(all)+1 {
			t.Fatalf("a failed WriteTargetRows changed the rows: %d, want %d", len(after), len(all)+1)
		}
	}},
}

var traceTests = []test{
	{"window by handle and time", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		rec := func(id, handle string, d time.Duration) persistence.TraceRecord {
			return persistence.TraceRecord{EventID: id, Event: "social.following.new", Handle: handle, EventTime: at(d), Data: []byte(`{"id":"` + id + `"}`)}
		}
		must(t, "AppendTrace", s.AppendTrace(ctx, []persistence.TraceRecord{
			rec("e1", "whale", 0), rec("e2", "whale", 5*time.Second), rec("e3", "other", time.Second),
			rec("e4", "whale", 11*time.Second), rec("e5", "whale", 5*time.Second),
		}))
		got, err := s.TraceWindow(ctx, "whale", at(0), at(10*time.Second), 100)
		must(t, "TraceWindow", err)
		var ids []string
		for _, r := range got {
			ids = append(ids, r.EventID)
		}
		if fmt.Sprint(ids) != "[e1 e2 e5]" {
			t.Fatalf("window ids %v", ids)
		}
		checkTime(t, "EventTime", got[1].EventTime, at(5*time.Second))
		if string(got[0].Data) != `{"id":"e1"}` || got[0].Event != "social.following.new" {
			t.Fatalf("record %+v", got[0])
		}
		got, err = s.TraceWindow(ctx, "whale", at(0), at(time.Minute), 2)
		must(t, "TraceWindow limit", err)
		if len(got) != 2 {
			t.Fatalf("limit: %d", len(got))
		}
	}},
}
