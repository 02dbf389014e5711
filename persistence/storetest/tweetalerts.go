package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// tracked builds tracked handles of account added at base+d.
func tracked(account string, d time.Duration, handles ...string) []persistence.TrackedHandle {
	var out []persistence.TrackedHandle
	for _, h := range handles {
		out = append(out, persistence.TrackedHandle{AccountID: account, Handle: h, AddedAt: at(d)})
	}
	return out
}

// tweetAlertsTests cover the Tweet Alerts consumer store: tracked lists, prefs,
// settings, webhooks, the delivery queue, the feed, secrets and links.
var tweetAlertsTests = []test{
	{"tracked handles: add, keep AddedAt, list order, untrack", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		mustAccount(t, s, "a1")
		mustAccount(t, s, "a2")
		must(t, "TrackHandles", s.TrackHandles(ctx, tracked("a1", 0, "whale", "degen")))
		must(t, "TrackHandles a2", s.TrackHandles(ctx, tracked("a2", time.Second, "whale")))
		// Re-adding keeps the first AddedAt; a new one comes later; a
		// handle given twice keeps its first time.
		again := append(tracked("a1", time.Minute, "whale", "alpha"), tracked("a1", time.Hour, "ALPHA")...)
		must(t, "TrackHandles again", s.TrackHandles(ctx, again))
		all, err := s.ListTrackedHandles(ctx)
		must(t, "ListTrackedHandles", err)
		var got []string
		for _, h := range all {
			got = append(got, fmt.Sprintf("%s/%s@%d", h.AccountID, h.Handle, h.AddedAt.Sub(base)/time.Second))
		}
		if want := "[a1/degen@0 a1/whale@0 a1/alpha@60 a2/whale@1]"; fmt.Sprint(got) != want {
			t.Fatalf("tracked = %v, want %s", got, want)
		}
		checkTime(t, "AddedAt", all[0].AddedAt, at(0))
		must(t, "UntrackHandle", s.UntrackHandle(ctx, "a1", "whale"))
		checkNotFound(t, "UntrackHandle twice", s.UntrackHandle(ctx, "a1", "whale"))
		checkNotFound(t, "UntrackHandle never tracked", s.UntrackHandle(ctx, "a2", "degen"))
		all, err = s.ListTrackedHandles(ctx)
		must(t, "ListTrackedHandles", err)
		if len(all) != 3 {
			t.Fatalf("after untrack: %d tracked, want 3", len(all))
		}
	}},
	{"handle prefs: keywords survive an untrack, mute and filters do not", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		mustAccount(t, s, "a1")
		must(t, "TrackHandles", s.TrackHandles(ctx, tracked("a1", 0, "whale")))
		p := persistence.HandlePrefs{AccountID: "a1", Handle: "whale", Keywords: []string{"sol", "Pump it"},
			Muted: true, ExcludeReplies: true, ExcludeReposts: true, ExcludeQuotes: true}
		must(t, "PutHandlePrefs", s.PutHandlePrefs(ctx, p))
		prefs, err := s.ListHandlePrefs(ctx)
		must(t, "ListHandlePrefs", err)
		if len(prefs) != 1 || fmt.Sprintf("%+v", prefs[0]) != fmt.Sprintf("%+v", p) {
			t.Fatalf("prefs = %+v, want [%+v]", prefs, p)
		}
		must(t, "UntrackHandle", s.UntrackHandle(ctx, "a1", "whale"))
		prefs, err = s.ListHandlePrefs(ctx)
		must(t, "ListHandlePrefs", err)
		want := persistence.HandlePrefs{AccountID: "a1", Handle: "whale", Keywords: []string{"sol", "Pump it"}}
		if len(prefs) != 1 || fmt.Sprintf("%+v", prefs[0]) != fmt.Sprintf("%+v", want) {
			t.Fatalf("prefs after untrack = %+v, want [%+v]", prefs, want)
		}
		// Replacing with no keywords stores nil.
		must(t, "PutHandlePrefs", s.PutHandlePrefs(ctx, persistence.HandlePrefs{AccountID: "a1", Handle: "whale"}))
		prefs, err = s.ListHandlePrefs(ctx)
		must(t, "ListHandlePrefs", err)
		if len(prefs) != 1 || prefs[0].Keywords != nil {
			t.Fatalf("prefs after clearing = %+v", prefs)
		}
	}},
	{"settings: put replaces, list by account", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		mustAccount(t, s, "a1")
		mustAccount(t, s, "a2")
		d := persistence.DefaultTweetAlertsSettings("a2")
		if !d.AutoTopics || d.ExcludeReplies || d.ContractsOnly || d.NotificationsPaused || d.ExcludeReposts || d.ContractTopic {
			t.Fatalf("defaults %+v: want auto_topics only", d)
		}
		must(t, "PutTweetAlertsSettings", s.PutTweetAlertsSettings(ctx, d))
		c := persistence.TweetAlertsSettings{AccountID: "a1", ExcludeReplies: true, ContractsOnly: true}
		must(t, "PutTweetAlertsSettings", s.PutTweetAlertsSettings(ctx, c))
		c.NotificationsPaused, c.ExcludeReposts, c.ContractTopic, c.ContractsOnly = true, true, true, false
		must(t, "PutTweetAlertsSettings replace", s.PutTweetAlertsSettings(ctx, c))
		got, err := s.ListTweetAlertsSettings(ctx)
		must(t, "ListTweetAlertsSettings", err)
		if len(got) != 2 || got[0] != c || got[1] != d {
			t.Fatalf("settings = %+v, want [%+v %+v]", got, c, d)
		}
	}},
	{"webhooks: create, list active, deactivate, failures, disable", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		mustAccount(t, s, "a1")
		mustAccount(t, s, "a2")
		w := persistence.Webhook{AccountID: "a1", URL: "https://example.com/hook", Events: []string{"tweet"},
			FilterHandles: []string{"whale"}, FilterKeywords: []string{"sol"}, Secret: "ab12", IsActive: true, CreatedAt: at(0)}
		w1, err := s.CreateWebhook(ctx, w)
		must(t, "CreateWebhook", err)
		if w1.ID == 0 {
			t.Fatalf("no id assigned")
		}
		w.ID = w1.ID
		if fmt.Sprintf("%+v", w1) != fmt.Sprintf("%+v", w) {
			t.Fatalf("created %+v, want %+v", w1, w)
		}
		w2, err := s.CreateWebhook(ctx, persistence.Webhook{AccountID: "a1", URL: "http://x.test/", Secret: "cd", IsActive: true, CreatedAt: at(time.Second)})
		must(t, "CreateWebhook 2", err)
		w3, err := s.CreateWebhook(ctx, persistence.Webhook{AccountID: "a2", URL: "http://y.test/", Secret: "ef", IsActive: true, CreatedAt: at(2 * time.Second)})
		must(t, "CreateWebhook 3", err)
		if !(w1.ID < w2.ID && w2.ID < w3.ID) {
			t.Fatalf("ids not increasing: %d %d %d", w1.ID, w2.ID, w3.ID)
		}
		if w2.Events != nil || w2.FilterHandles != nil || w2.FilterKeywords != nil {
			t.Fatalf("empty lists should come back nil: %+v", w2)
		}
		checkNotFound(t, "DeactivateWebhook of another account", s.DeactivateWebhook(ctx, "a2", w1.ID, at(time.Minute)))
		must(t, "DeactivateWebhook", s.DeactivateWebhook(ctx, "a1", w1.ID, at(time.Minute)))
		checkNotFound(t, "DeactivateWebhook twice", s.DeactivateWebhook(ctx, "a1", w1.ID, at(time.Minute)))
		must(t, "SetWebhookFailures", s.SetWebhookFailures(ctx, w2.ID, 3, false, at(time.Minute)))
		must(t, "SetWebhookFailures disable", s.SetWebhookFailures(ctx, w3.ID, 10, true, at(time.Hour)))
		must(t, "SetWebhookFailures unknown", s.SetWebhookFailures(ctx, 999999, 1, false, at(time.Hour)))
		list, err := s.ListActiveWebhooks(ctx)
		must(t, "ListActiveWebhooks", err)
		if len(list) != 1 || list[0].ID != w2.ID || list[0].ConsecutiveFailures != 3 || !list[0].IsActive {
			t.Fatalf("active = %+v, want only webhook %d with 3 failures", list, w2.ID)
		}
		checkNotFound(t, "DeactivateWebhook of a disabled one", s.DeactivateWebhook(ctx, "a2", w3.ID, at(time.Hour)))
	}},
	{"feed posts across handles before a cursor", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		must(t, "SavePosts", s.SavePosts(ctx, []persistence.Post{
			post("1", "alice", at(1*time.Second), at(0), "{}"),
			post("2", "bob", at(2*time.Second), at(0), "{}"),
			post("3", "carol", at(3*time.Second), at(0), "{}"),
			post("4", "alice", at(4*time.Second), at(0), "{}"),
			post("5", "bob", at(4*time.Second), at(0), "{}"),
		}))
		got, err := s.FeedPosts(ctx, []string{"alice", "BOB"}, at(time.Hour), 10)
		must(t, "FeedPosts", err)
		if ids := postIDs(got); fmt.Sprint(ids) != "[5 4 2 1]" {
			t.Fatalf("feed = %v, want [5 4 2 1]", ids)
		}
		got, err = s.FeedPosts(ctx, []string{"alice", "bob"}, at(4*time.Second), 2)
		must(t, "FeedPosts before", err)
		if ids := postIDs(got); fmt.Sprint(ids) != "[2 1]" {
			t.Fatalf("feed before 4s = %v, want [2 1]", ids)
		}
		got, err = s.FeedPosts(ctx, nil, at(time.Hour), 10)
		must(t, "FeedPosts no handles", err)
		if len(got) != 0 {
			t.Fatalf("feed of no handles = %v", postIDs(got))
		}
	}},
	{"server secret: first candidate wins", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		a, err := s.ServerSecret(ctx, "jwt", []byte("first"))
		must(t, "ServerSecret", err)
		b, err := s.ServerSecret(ctx, "jwt", []byte("second"))
		must(t, "ServerSecret again", err)
		c, err := s.ServerSecret(ctx, "other", []byte("x"))
		must(t, "ServerSecret other", err)
		if string(a) != "first" || string(b) != "first" || string(c) != "x" {
			t.Fatalf("secrets %q %q %q", a, b, c)
		}
	}},
	{"telegram links", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		mustAccount(t, s, "a1")
		mustAccount(t, s, "a2")
		_, _, err := s.TelegramLink(ctx, 42)
		checkNotFound(t, "TelegramLink unknown", err)
		must(t, "LinkTelegram", s.LinkTelegram(ctx, 42, "a1", protocol.ProductTweetAlerts, at(0)))
		must(t, "LinkTelegram relink", s.LinkTelegram(ctx, 42, "a2", protocol.ProductB2B, at(time.Second)))
		acct, p, err := s.TelegramLink(ctx, 42)
		must(t, "TelegramLink", err)
		if acct != "a2" || p != protocol.ProductB2B {
			t.Fatalf("link = %s/%s, want a2/dt", acct, p)
		}
		// The link's time tells it apart from an earlier link of the same user.
		l, err := s.TelegramLinkOf(ctx, 42)
		must(t, "TelegramLinkOf", err)
		if l.TelegramID != 42 || l.Account != "a2" || l.Product != protocol.ProductB2B || !l.LinkedAt.Equal(at(time.Second)) {
			t.Fatalf("TelegramLinkOf(42) = %+v, want a2/dt at %v", l, at(time.Second))
		}
		if err := s.LinkTelegram(ctx, 43, "nobody", protocol.ProductTweetAlerts, at(0)); err == nil {
			t.Errorf("linking to an unknown account succeeded")
		}
		// Listed per (account, product), oldest first; removed only there.
		must(t, "LinkTelegram 44", s.LinkTelegram(ctx, 44, "a2", protocol.ProductB2B, at(2*time.Second)))
		must(t, "LinkTelegram 45", s.LinkTelegram(ctx, 45, "a2", protocol.ProductTweetAlerts, at(0)))
		ls, err := s.TelegramLinks(ctx, "a2", protocol.ProductB2B)
		must(t, "TelegramLinks", err)
		if len(ls) != 2 || ls[0].TelegramID != 42 || ls[1].TelegramID != 44 || !ls[0].LinkedAt.Equal(at(time.Second)) {
			t.Fatalf("TelegramLinks(a2, dt) = %+v, want 42 then 44", ls)
		}
		checkNotFound(t, "UnlinkTelegram of another account", s.UnlinkTelegram(ctx, 42, "a1", protocol.ProductB2B))
		must(t, "UnlinkTelegram", s.UnlinkTelegram(ctx, 42, "a2", protocol.ProductB2B))
		_, _, err = s.TelegramLink(ctx, 42)
		checkNotFound(t, "TelegramLink after unlink", err)
		_, err = s.TelegramLinkOf(ctx, 42)
		checkNotFound(t, "TelegramLinkOf after unlink", err)
		checkNotFound(t, "UnlinkTelegram twice", s.UnlinkTelegram(ctx, 42, "a2", protocol.ProductB2B))
		if ls, _ := s.TelegramLinks(ctx, "a2", protocol.ProductB2B); len(ls) != 1 || ls[0].TelegramID != 44 {
			t.Fatalf("TelegramLinks after unlink = %+v", ls)
		}
	}},
}
