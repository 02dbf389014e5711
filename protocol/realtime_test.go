package protocol

import (
	stdjson "encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestOpcodes(t *testing.T) {
	got := []int{OpEvent, OpHeartbeat, OpLogin, OpDisconnect, OpReady, OpHello, OpHeartbeatAck}
	want := []int{0, 1, 2, 3, 4, 10, 11}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("opcodes %v, want %v", got, want)
		}
	}
}

func TestFrames(t *testing.T) {
	cases := []struct {
		name, got, want string
	}{
		{"hello", string(AppendHello(nil, 30000)), `{"op":10,"d":{"heartbeat_interval":30000}}`},
		{"ready", string(AppendReady(nil, 17, []string{"realtime", "follows", "late_delivery"}, 3, 1000)),
			`{"op":4,"d":{"client_id":17,"modules":["realtime","follows","late_delivery"],"handles":3,"max_handles":1000}}`},
		{"ready no modules", string(AppendReady(nil, 1, nil, 0, 10)),
			`{"op":4,"d":{"client_id":1,"modules":[],"handles":0,"max_handles":10}}`},
		{"ack", string(AppendHeartbeatAck(nil)), `{"op":11}`},
		{"disconnect", string(AppendDisconnect(nil, ReasonInvalidKey, CodeKeyUnknown, "unknown key; 4 attempts left", 0)),
			`{"op":3,"d":{"reason":"Invalid or expired API key","code":"key_unknown","message":"unknown key; 4 attempts left"}}`},
		{"disconnect retry", string(AppendDisconnect(nil, ReasonTooManyConnections, CodeTooManyConnections, "5 open", 180)),
			`{"op":3,"d":{"reason":"Too many connections (max 5)","code":"too_many_connections","message":"5 open","retry_after":180}}`},
		{"disconnect by code", string(AppendDisconnectCode(nil, CodeIPBlocked, "blocked", 3600)),
			`{"op":3,"d":{"reason":"Too many failed logins","code":"ip_blocked","message":"blocked","retry_after":3600}}`},
		{"disconnect unknown code", string(AppendDisconnectCode(nil, "weird", "m", 0)),
			`{"op":3,"d":{"reason":"Invalid login payload","code":"weird","message":"m"}}`},
		{"event", string(AppendEvent([]byte("ab"), []byte(`{"event":"x"}`))), `ab{"op":0,"d":{"event":"x"}}`},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, c.got, c.want)
		}
		if s := strings.TrimPrefix(c.got, "ab"); !stdjson.Valid([]byte(s)) {
			t.Errorf("%s: invalid JSON", c.name)
		}
	}
}

func TestDisconnectTable(t *testing.T) {
	cases := []struct {
		code, reason string
		retry        bool
	}{
		{"key_missing", "Invalid or expired API key", false},
		{"key_malformed", "Invalid or expired API key", false},
		{"key_unknown", "Invalid or expired API key", false},
		{"key_expired", "Invalid or expired API key", false},
		{"key_deactivated", "Invalid or expired API key", false},
		{"key_blocked", "Invalid or expired API key", true},
		{"ip_blocked", "Too many failed logins", true},
		{"login_invalid", "Invalid login payload", false},
		{"login_timeout", "Login timeout", true},
		{"too_many_connections", "Too many connections (max 5)", true},
		{"subscription_expired", "Subscription expired", false},
	}
	for _, c := range cases {
		r, ok := DisconnectReason(c.code)
		if !ok || r != c.reason || DisconnectRetryable(c.code) != c.retry {
			t.Errorf("%s: reason %q %v retry %v", c.code, r, ok, DisconnectRetryable(c.code))
		}
	}
	if _, ok := DisconnectReason("key_in_query"); ok {
		t.Error("key_in_query is not a DISCONNECT code")
	}
}

func TestAppendJSONStr(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", `""`},
		{"plain", `"plain"`},
		{`q"b\`, `"q\"b\\"`},
		{"a\nb\rc\td", `"a\nb\rc\td"`},
		{"\x00\x1f\x7f", `"\u0000\u001f` + "\x7f" + `"`},
		{"é🚀", `"é🚀"`},
		{"bad\xffutf8", `"bad\ufffdutf8"`},
		{"ls\u2028ps\u2029", `"ls\u2028ps\u2029"`},
		{"<html>&", `"<html>&"`},
	}
	for _, c := range cases {
		if got := string(appendJSONStr(nil, c.in)); got != c.want {
			t.Errorf("appendJSONStr(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func FuzzAppendJSONStr(f *testing.F) {
	for _, s := range []string{"", "a\"b", "\xff\xfe", "\u2028", "\x00", "🚀"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := appendJSONStr(nil, s)
		var back string
		if err := stdjson.Unmarshal(b, &back); err != nil {
			t.Fatalf("appendJSONStr(%q) = %s: %v", s, b, err)
		}
		if utf8.ValidString(s) && back != s {
			t.Fatalf("round trip of %q gave %q", s, back)
		}
		// Each invalid byte becomes one U+FFFD, as ranging over s does.
		if want := string([]rune(s)); back != want {
			t.Fatalf("%q came back as %q, want %q", s, back, want)
		}
	})
}

func TestEncodersNoAlloc(t *testing.T) {
	buf := make([]byte, 0, 1024)
	mods := []string{"realtime", "follows"}
	a := testing.AllocsPerRun(100, func() {
		buf = AppendHello(buf[:0], 30000)
		buf = AppendReady(buf[:0], 1, mods, 2, 3)
		buf = AppendHeartbeatAck(buf[:0])
		buf = AppendDisconnect(buf[:0], ReasonLoginTimeout, CodeLoginTimeout, "no LOGIN within 15 seconds", 0)
		buf = AppendEvent(buf[:0], []byte(`{}`))
	})
	if a != 0 {
		t.Fatalf("frame encoders allocated %v times", a)
	}
}

func BenchmarkAppendReady(b *testing.B) {
	b.ReportAllocs()
	buf := make([]byte, 0, 256)
	mods := []string{"realtime", "follows", "profile_watch", "followers", "late_delivery"}
	for b.Loop() {
		buf = AppendReady(buf[:0], 123456, mods, 250, 1000)
	}
}

func BenchmarkAppendDisconnect(b *testing.B) {
	b.ReportAllocs()
	buf := make([]byte, 0, 256)
	for b.Loop() {
		buf = AppendDisconnect(buf[:0], ReasonInvalidKey, CodeKeyUnknown, "unknown key; 4 attempts left before a 1-hour block", 0)
	}
}

func BenchmarkAppendEvent(b *testing.B) {
	b.ReportAllocs()
	d := AppendEventD(nil, &EventHeader{Kind: EventKindPostNew, EventID: "evt_1", Handle: "alice"}, []byte(`{"id":"1"}`))
	buf := make([]byte, 0, 256)
	for b.Loop() {
		buf = AppendEvent(buf[:0], d)
	}
}

func TestPeekOp(t *testing.T) {
	cases := map[string]int{`{"op":1}`: 1, `{"op":2,"d":"k"}`: 2, `{"d":null,"op":11}`: 11}
	for in, want := range cases {
		if op, ok := PeekOp([]byte(in)); !ok || op != want {
			t.Errorf("%s: %d %v", in, op, ok)
		}
	}
	for _, in := range []string{`{"op":"1"}`, `{"op":1.5}`, `{}`, `[1]`, `op`, `{"op":-1}`} {
		if _, ok := PeekOp([]byte(in)); ok {
			t.Errorf("%s accepted", in)
		}
	}
}
