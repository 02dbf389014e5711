package storetest

import (
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
)

// ecaTests hold the store to persistence.ECAStore.
var ecaTests = []test{
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
}
