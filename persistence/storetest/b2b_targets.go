package storetest

import (
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
		t1, err := s.PutTarget(ctx, persistence.Target{AccountID: "a1", Handle: "whale", DisplayName: "", IsActive: true, CreatedAt: at(0)})
		must(t, "PutTarget", err)
		if t1.ID == 0 || t1.SocialUserID != nil || !t1.IsActive {
			t.Fatalf("inserted target: %+v", t1)
		}
		_, err = s.PutTarget(ctx, persistence.Target{AccountID: "a2", Handle: "whale", IsActive: true, CreatedAt: at(time.Second)})
		must(t, "PutTarget a2", err)
		_, err = s.PutTarget(ctx, persistence.Target{AccountID: "a1", Handle: "degen", IsActive: true, CreatedAt: at(2 * time.Second)})
		must(t, "PutTarget degen", err)
		up := t1
		up.SocialUserID, up.DisplayName, up.IsActive = ptr("42"), "Whale", false
		up.CreatedAt = at(time.Hour) // ignored on update
		got, err := s.PutTarget(ctx, up)
		must(t, "PutTarget update", err)
		if got.ID != t1.ID || got.SocialUserID == nil || *got.SocialUserID != "42" || got.DisplayName != "Whale" || got.IsActive {
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
