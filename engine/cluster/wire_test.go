package cluster

import (
	"bytes"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/actors/handle"
	"github.com/alertd/alertd/engine/cluster/wire"
	"github.com/alertd/alertd/protocol"
	"google.golang.org/protobuf/proto"
)

func testTweet(created int64) *protocol.Tweet {
	ocr := "ocr text 7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU"
	return &protocol.Tweet{ID: "1900000000000000001", Type: "post", Text: "hello $ABC", CreatedAt: created, OCRText: &ocr,
		Author: protocol.TweetAuthor{Handle: "whale", Name: "Whale"}}
}

// TestEventCrossesNodesAsEncoded: an event rebuilt from its wire form on
// another node gives every session kind the same bytes and the same
// filter fields as the original, without encoding anything again.
func TestEventCrossesNodesAsEncoded(t *testing.T) {
	now := time.Now().UnixMilli()
	var cats protocol.CategorySet
	cats.Add(3)
	cases := map[string]*delivery.Event{
		"post": {Kind: delivery.KindHandle, Meta: protocol.PostMeta(protocol.EventKindPostNew, testTweet(now-1000), cats),
			Header: protocol.EventHeader{Kind: protocol.EventKindPostNew, EventID: protocol.TweetEventID("1900000000000000001"), Handle: "whale"},
			Tweet:  testTweet(now - 1000), CreatedAt: now - 1000, DetectedAt: now},
		"late post": {Kind: delivery.KindHandle, Meta: protocol.PostMeta(protocol.EventKindPostNew, testTweet(now-600_000), cats),
			Header: protocol.EventHeader{Kind: protocol.EventKindPostNew, EventID: "x", Handle: "whale"},
			Tweet:  testTweet(now - 600_000), CreatedAt: now - 600_000, DetectedAt: now, Late: true},
		"ocr-only update": {Kind: delivery.KindHandle, Meta: protocol.PostMeta(protocol.EventKindPostUpdate, testTweet(now), cats),
			Header: protocol.EventHeader{Kind: protocol.EventKindPostUpdate, EventID: "y", Handle: "whale"},
			Tweet:  testTweet(now), UpdateForOCROnly: true, CreatedAt: now, DetectedAt: now},
		"follow": {Kind: delivery.KindHandle, Meta: protocol.NonPostMeta(protocol.EventKindFollowingNew, cats),
			Header: protocol.EventHeader{Kind: protocol.EventKindFollowingNew, EventID: "z", EventTime: now, Handle: "whale", TaskID: "t1"},
			Data:   []byte(`{"user":{"id":"1"}}`), CreatedAt: now, DetectedAt: now},
	}
	g := &grain{n: &Node{timing: protocol.DefaultTimings()}}
	for name, e := range cases {
		t.Run(name, func(t *testing.T) {
			e.Encode() // as Hub.Publish does before Deliver
			w := g.encode(e)
			b, err := proto.Marshal(w)
			if err != nil {
				t.Fatal(err)
			}
			var back wire.Event
			if err := proto.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			got := decode(&back, cats)
			if got.Meta.Kind != e.Meta.Kind || got.Meta.Type != e.Meta.Type || got.Meta.HasCA != e.Meta.HasCA ||
				got.Meta.HasTicker != e.Meta.HasTicker || got.Header != e.Header || got.Late != e.Late ||
				got.UpdateForOCROnly != e.UpdateForOCROnly || got.CreatedAt != e.CreatedAt || got.DetectedAt != e.DetectedAt {
				t.Errorf("fields differ:\n got %+v %+v\nwant %+v %+v", got.Meta, got.Header, e.Meta, e.Header)
			}
			if (got.Tweet == nil) != (e.Tweet == nil) {
				t.Errorf("tweet %v, want %v", got.Tweet != nil, e.Tweet != nil)
			}
			for _, ent := range []bool{false, true} {
				if !bytes.Equal(got.FrameFor(ent), e.FrameFor(ent)) {
					t.Errorf("enterprise=%v frame %s, want %s", ent, got.FrameFor(ent), e.FrameFor(ent))
				}
				if !bytes.Equal(got.ReplayFrame(ent), e.ReplayFrame(ent)) {
					t.Errorf("enterprise=%v replay %s, want %s", ent, got.ReplayFrame(ent), e.ReplayFrame(ent))
				}
			}
			if !bytes.Equal(got.TweetOnlyFrame(), e.TweetOnlyFrame()) {
				t.Errorf("tweet-only %s, want %s", got.TweetOnlyFrame(), e.TweetOnlyFrame())
			}
			// The alert was decided on the grain's node: the other node's
			// clock does not decide again.
			never := func() time.Time { return time.Unix(0, 0) }
			want := e.AlertFrame(never, time.Minute)
			if a := got.AlertFrame(func() time.Time { return time.Now().Add(time.Hour) }, time.Minute); !bytes.Equal(a, want) {
				t.Errorf("alert %s, want %s", a, want)
			}
			if name == "post" && want == nil {
				t.Error("a new post of a second ago has no alert frame")
			}
		})
	}
}

// TestToWire: what crosses to a grain on another node, and what cannot.
func TestToWire(t *testing.T) {
	o := &protocol.Observation{Kind: protocol.KindPost, Key: "whale", DetectedAt: 42, Raw: []byte(`{"kind":"post"}`)}
	n := &Node{timing: protocol.DefaultTimings()}
	if w, ok := n.toWire(&handle.Observe{Obs: o}).(*wire.Observe); !ok || string(w.Line) != `{"kind":"post"}` || w.DetectedAt != 42 || w.Handle != "whale" {
		t.Errorf("Observe: %v", n.toWire(&handle.Observe{Obs: o}))
	}
	if w, ok := n.toWire(&handle.RenamedTo{Handle: "orca"}).(*wire.Renamed); !ok || w.Handle != "orca" {
		t.Errorf("RenamedTo: %v", n.toWire(&handle.RenamedTo{Handle: "orca"}))
	}
	e := &delivery.Event{Kind: delivery.KindHandle, Header: protocol.EventHeader{Kind: protocol.EventKindProfileUpdate, EventID: "p", Handle: "whale"},
		Data: []byte(`{"field":"name"}`)}
	e.Encode()
	if w, ok := n.toWire(&handle.Publish{Event: e}).(*wire.Event); !ok || w.Handle != "whale" || len(w.Frames[0]) == 0 {
		t.Errorf("Publish: %v", n.toWire(&handle.Publish{Event: e}))
	}
	if w := n.toWire(&handle.QueryMemberships{}); w != nil {
		t.Errorf("QueryMemberships has a wire form: %v", w)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, c := range []struct {
		cfg Config
		ok  bool
	}{
		{Config{Name: "c", Addr: DefaultAddr}, true},
		{Config{Name: "c", Addr: DefaultAddr, Provider: "automanaged", Peers: []string{"10.0.0.2:7946"}}, true},
		{Config{Name: "c", Addr: DefaultAddr, Provider: "zookeeper"}, false},
		{Config{Name: "c", Addr: DefaultAddr, Provider: "etcd"}, false}, // the endpoints are needed
		{Config{Name: "c", Addr: DefaultAddr, Provider: "etcd", Peers: []string{"10.0.0.9:2379", "http://etcd-2:2379"}}, true},
		{Config{Name: "c", Addr: DefaultAddr, Provider: "etcd", Peers: []string{"https://etcd:2379"}}, false},
		{Config{Name: "c", Addr: DefaultAddr, Provider: "etcd", Peers: []string{"etcd"}}, false},
		{Config{Name: "c", Addr: DefaultAddr, Provider: "consul"}, true},
		{Config{Name: "c", Addr: DefaultAddr, Provider: "consul", Peers: []string{"127.0.0.1:8500"}}, true},
		{Config{Name: "c", Addr: DefaultAddr, Provider: "consul", Peers: []string{"a:8500", "b:8500"}}, false},
		{Config{Name: "c", Addr: DefaultAddr, Provider: "kubernetes", Peers: []string{"10.0.0.2:7946"}}, false},
		{Config{Name: "c", Addr: "7946"}, false},
		{Config{Name: "c", Addr: ":7946"}, false},
		{Config{Name: "c", Addr: "127.0.0.1:65535"}, false},
		{Config{Name: "c", Addr: DefaultAddr, Peers: []string{"x"}}, false},
	} {
		if err := c.cfg.Validate(); (err == nil) != c.ok {
			t.Errorf("%+v: %v, want ok=%v", c.cfg, err, c.ok)
		}
	}
	if got := membershipAddr("127.0.0.1:7946"); got != "127.0.0.1:7947" {
		t.Errorf("membership address %s", got)
	}
}

// BenchmarkCrossNodeEvent is what one event costs per listening member:
// the grain's encoding to the wire (once per event), the protobuf bytes,
// and the relay's rebuilding on the other member.
func BenchmarkCrossNodeEvent(b *testing.B) {
	now := time.Now().UnixMilli()
	var cats protocol.CategorySet
	tw := testTweet(now - 1000)
	g := &grain{n: &Node{timing: protocol.DefaultTimings()}}
	newEvent := func() *delivery.Event {
		e := &delivery.Event{Kind: delivery.KindHandle, Meta: protocol.PostMeta(protocol.EventKindPostNew, tw, cats),
			Header: protocol.EventHeader{Kind: protocol.EventKindPostNew, EventID: protocol.TweetEventID(tw.ID), Handle: "whale"},
			Tweet:  tw, CreatedAt: now - 1000, DetectedAt: now}
		e.Encode()
		return e
	}
	b.Run("encode", func(b *testing.B) {
		e := newEvent()
		var n int
		b.ReportAllocs()
		for b.Loop() {
			buf, _ := proto.Marshal(g.encode(e))
			n = len(buf)
		}
		b.ReportMetric(float64(n), "wire-bytes")
	})
	b.Run("decode", func(b *testing.B) {
		buf, _ := proto.Marshal(g.encode(newEvent()))
		b.ReportAllocs()
		for b.Loop() {
			var w wire.Event
			_ = proto.Unmarshal(buf, &w)
			_ = decode(&w, cats)
		}
	})
}
