package delivery

import (
	"testing"
	"time"

	"github.com/alertd/alertd/protocol"
)

// recorder keeps what it was delivered.
type recorder struct{ got []*Event }

func (r *recorder) Deliver(e *Event) { r.got = append(r.got, e) }

// TestTopicsAreApart: the same key under another kind or product is another
// topic.
func TestTopicsAreApart(t *testing.T) {
	h := NewHub()
	topics := []Topic{
		HandleTopic("acc_1"),
		AccountTopic(protocol.ProductCW, "acc_1"),
		AccountTopic(protocol.ProductCT, "acc_1"),
		AccountTopic(protocol.ProductB2B, "acc_1"),
		WalletTopic("acc_1"),
		ProductTopic(protocol.ProductTrending),
	}
	subs := make([]*recorder, len(topics))
	for i, tp := range topics {
		subs[i] = &recorder{}
		h.Subscribe(tp, subs[i])
	}
	if h.Topics() != len(topics) {
		t.Fatalf("%d topics, want %d", h.Topics(), len(topics))
	}
	for i, tp := range topics {
		if n := h.Publish(tp, NewFrame([]byte(`{}`), "", 0)); n != 1 {
			t.Fatalf("topic %+v reached %d", tp, n)
		}
		for j, s := range subs {
			if want := 0; j <= i {
				want = 1
				if len(s.got) != want {
					t.Fatalf("after publishing on %+v, subscriber of %+v has %d events", tp, topics[j], len(s.got))
				}
			} else if len(s.got) != want {
				t.Fatalf("subscriber of %+v got an event of %+v", topics[j], tp)
			}
		}
	}
	for i, tp := range topics {
		h.Unsubscribe(tp, subs[i])
	}
	if h.Topics() != 0 {
		t.Fatalf("%d topics left", h.Topics())
	}
}

type renamer struct {
	recorder
	moves [][2]string
}

func (r *renamer) Renamed(from, to string) { r.moves = append(r.moves, [2]string{from, to}) }

// TestRenameMovesRenamersOnly: subscribers that follow renames are added to
// the new handle and told; the others stay on the old one only.
func TestRenameMovesRenamersOnly(t *testing.T) {
	h := NewHub()
	follow, stay := &renamer{}, &recorder{}
	h.Subscribe(HandleTopic("old"), follow)
	h.Subscribe(HandleTopic("old"), stay)
	h.Rename("old", "new")
	if len(follow.moves) != 1 || follow.moves[0] != [2]string{"old", "new"} {
		t.Fatalf("renamer told %v", follow.moves)
	}
	if n := h.Publish(HandleTopic("new"), deletedEvent("new")); n != 1 || len(follow.got) != 1 || len(stay.got) != 0 {
		t.Fatalf("new handle reached %d (renamer %d, other %d)", n, len(follow.got), len(stay.got))
	}
	if n := h.Publish(HandleTopic("old"), deletedEvent("old")); n != 2 {
		t.Fatalf("old handle reached %d, want both", n)
	}
}

func postEvent(createdAt, detectedAt int64, kind protocol.EventKind) *Event {
	tw := &protocol.Tweet{ID: "5", CreatedAt: createdAt, Type: protocol.PostTypePost, Text: "gm",
		Author: protocol.TweetAuthor{ID: "1", Handle: "Whale"}}
	return &Event{Header: protocol.EventHeader{Kind: kind, EventID: protocol.TweetEventID("5"), Handle: "whale"},
		Tweet: tw, CreatedAt: createdAt, DetectedAt: detectedAt}
}

func at(ms int64) func() time.Time { return func() time.Time { return time.UnixMilli(ms) } }

// TestAlertFrame: the Tweet Alerts variant exists for new posts younger than
// the limit, is encoded once, and the first decision holds.
func TestAlertFrame(t *testing.T) {
	e := postEvent(1000, 1200, protocol.EventKindPostNew)
	if e.alertDone || e.alert != nil {
		t.Fatal("alert encoded before anyone asked")
	}
	e.Encode()
	if e.alert != nil {
		t.Fatal("Encode built the alert variant nobody asked for")
	}
	f := e.AlertFrame(at(1500), time.Minute)
	if f == nil || string(f[:16]) != `{"type":"alert",` {
		t.Fatalf("alert frame %s", f)
	}
	if g := e.AlertFrame(at(999_999), time.Minute); &g[0] != &f[0] {
		t.Fatal("alert encoded twice, or a later clock changed the decision")
	}
	if e := postEvent(1000, 1200, protocol.EventKindPostNew); e.AlertFrame(at(61_000), time.Minute) != nil {
		t.Fatal("alert of a post 60 s old")
	}
	if e := postEvent(1000, 1200, protocol.EventKindPostUpdate); e.AlertFrame(at(1500), time.Minute) != nil {
		t.Fatal("alert of a post update")
	}
	if deletedEvent("x").AlertFrame(at(0), time.Minute) != nil || NewFrame([]byte(`{}`), "", 0).AlertFrame(at(0), time.Minute) != nil {
		t.Fatal("alert of an event that is not a post")
	}
}

// TestFrameAndListEvents: product frames and list changes come encoded;
// Encode leaves them alone.
func TestFrameAndListEvents(t *testing.T) {
	e := NewFrame([]byte(`{"type":"match","data":{}}`), "item", 4)
	e.Encode()
	if e.Kind != KindFrame || string(e.ProductFrame()) != `{"type":"match","data":{}}` || e.Item != "item" || e.Mask != 4 || e.FrameFor(false) != nil {
		t.Fatalf("frame event %+v", e)
	}
	if a, r := TargetAdded("whale"), TargetRemoved("whale"); a.Kind != KindTargetAdded || r.Kind != KindTargetRemoved || a.Item != "whale" || r.Item != "whale" {
		t.Fatalf("list changes %+v %+v", a, r)
	}
}

// TestFrameFilter: items and kind bits narrow what a product socket takes.
func TestFrameFilter(t *testing.T) {
	var all FrameFilter
	items := NewFrameFilter([]string{"whale", "degen"}, nil)
	kinds := NewFrameFilter(nil, map[string]uint8{"W1": 1 | 4, "W2": 2})
	for _, c := range []struct {
		name              string
		e                 *Event
		all, items, kinds bool
	}{
		{"frame about a listed item", NewFrame(nil, "whale", 0), true, true, false},
		{"frame about another item", NewFrame(nil, "other", 0), true, false, false},
		{"frame about no item", NewFrame(nil, "", 0), true, true, false},
		{"kind watched for the wallet", NewFrame(nil, "W1", 4), true, false, true},
		{"kind not watched for the wallet", NewFrame(nil, "W1", 2), true, false, false},
		{"other wallet's kind", NewFrame(nil, "W2", 2), true, false, true},
		{"unknown wallet", NewFrame(nil, "W3", 1), true, false, false},
		{"a handle event", deletedEvent("whale"), false, false, false},
		{"a list change", TargetAdded("whale"), false, false, false},
	} {
		if got := all.Allows(c.e); got != c.all {
			t.Errorf("%s: zero filter %v, want %v", c.name, got, c.all)
		}
		if got := items.Allows(c.e); got != c.items {
			t.Errorf("%s: item filter %v, want %v", c.name, got, c.items)
		}
		if got := kinds.Allows(c.e); got != c.kinds {
			t.Errorf("%s: kind filter %v, want %v", c.name, got, c.kinds)
		}
	}
}
