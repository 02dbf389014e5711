package session

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/protocol"
)

// FuzzRealtimeLogin drives a session with arbitrary first and second frames
// (protocol's FuzzDecodeLogin covers the decoder; this covers what the
// session does with it). Whatever comes: no panic; after HELLO the session
// answers the first frame with exactly READY, or DISCONNECT with a code of
// the table followed by a close; a refused session sends nothing more and
// holds no slot; a ready one answers a second frame with at most one
// HEARTBEAT_ACK.
func FuzzRealtimeLogin(f *testing.F) {
	d := newTestDeps(f)
	key, acct := d.issue(f, "enterprise", nil, "alpha")
	for _, s := range []string{
		`{"op":2,"d":"KEY"}`, `{"op":2,"d":{"api_key":"KEY","types":["Tweet"],"categories":["coin"]}}`,
		`{"op":2,"d":{"apiKey":" KEY "}}`, `{"op":2,"d":""}`, `{"op":2,"d":{}}`, `{"op":"2","d":"KEY"}`,
		`{"op":3}`, `garbage`, `{"op":2,"d":"dt_nope"}`, `{"op":2,"d":"cw_x"}`, `{"op":1}`,
	} {
		f.Add(true, []byte(s), true, []byte(`{"op":1}`))
		f.Add(false, []byte(s), true, []byte(s))
	}
	f.Fuzz(func(t *testing.T, text1 bool, first []byte, text2 bool, second []byte) {
		first = []byte(strings.ReplaceAll(string(first), "KEY", key))
		// A fresh blocker and limit per run: runs must not block each other.
		tm := d.Timings
		dd := &Deps{Registry: d.Registry, Hub: d.Hub, Recent: d.Recent, Targets: d.Targets, Timings: tm, Now: d.Now,
			Blocker: NewBlocker(protocol.MaxFailedLogins, tm.FailedLoginWindow, tm.IPBlock, tm.BlockedAcceptEvery),
			Limits:  NewConnLimit()}
		c := newFakeConn("198.51.100.7")
		s := NewRealtime(dd)
		open(s, c)
		s.Message(text1, first)
		f1 := c.frames()
		if len(f1) != 2 {
			t.Fatalf("after one frame: %q, want HELLO and one answer", f1)
		}
		var ans struct {
			Op int `json:"op"`
			D  struct {
				Code   string `json:"code"`
				Reason string `json:"reason"`
			} `json:"d"`
		}
		if err := json.Unmarshal([]byte(f1[1]), &ans); err != nil {
			t.Fatalf("answer %q is not JSON: %v", f1[1], err)
		}
		switch ans.Op {
		case protocol.OpReady:
			if c.closed || dd.Limits.Held(B2BQuota(acct)) != 1 {
				t.Fatalf("READY but closed %v, slots %d", c.closed, dd.Limits.Held(B2BQuota(acct)))
			}
		case protocol.OpDisconnect:
			if reason, ok := protocol.DisconnectReason(ans.D.Code); !ok || reason != ans.D.Reason {
				t.Fatalf("DISCONNECT code %q reason %q", ans.D.Code, ans.D.Reason)
			}
			if !c.closed || dd.Limits.Held(B2BQuota(acct)) != 0 {
				t.Fatalf("DISCONNECT but closed %v, slots %d", c.closed, dd.Limits.Held(B2BQuota(acct)))
			}
		default:
			t.Fatalf("answer %q is neither READY nor DISCONNECT", f1[1])
		}
		s.Message(text2, second)
		f2 := c.frames()[2:]
		switch {
		case ans.Op == protocol.OpDisconnect && len(f2) != 0:
			t.Fatalf("frames after DISCONNECT: %q", f2)
		case len(f2) > 1 || len(f2) == 1 && f2[0] != `{"op":11}`:
			t.Fatalf("second frame answered %q", f2)
		}
		s.Closed(ReasonClientClosed)
		if dd.Limits.Held(B2BQuota(acct)) != 0 || len(d.Hub.Subscribers(delivery.HandleTopic("alpha"))) != 0 {
			t.Fatal("closed session left a slot or subscription")
		}
	})
}
