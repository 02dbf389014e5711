package main

import (
	"os"
	"slices"
	"testing"
	"time"

	"github.com/alertd/alertd/protocol"
)

func TestParseTimings(t *testing.T) {
	tm := protocol.DefaultTimings()
	err := parseTimings(" LoginWindow=800ms, HeartbeatTimeout=3s,,WebhookBackoff=10ms|20ms ", &tm)
	if err != nil {
		t.Fatal(err)
	}
	if tm.LoginWindow != 800*time.Millisecond || tm.HeartbeatTimeout != 3*time.Second {
		t.Errorf("got LoginWindow %v HeartbeatTimeout %v", tm.LoginWindow, tm.HeartbeatTimeout)
	}
	if !slices.Equal(tm.WebhookBackoff, []time.Duration{10 * time.Millisecond, 20 * time.Millisecond}) {
		t.Errorf("WebhookBackoff %v", tm.WebhookBackoff)
	}
	if def := protocol.DefaultTimings(); tm.InboundSilence != def.InboundSilence || tm.IPBlock != def.IPBlock {
		t.Errorf("fields not named changed: %v %v", tm.InboundSilence, tm.IPBlock)
	}
	for _, bad := range []string{"NoSuchTiming=1s", "LoginWindow", "LoginWindow=fast", "LoginWindow=-1s", "WebhookBackoff=1s|x"} {
		tm := protocol.DefaultTimings()
		if err := parseTimings(bad, &tm); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestServeFlagsTestTimings(t *testing.T) {
	t.Setenv(testTimingsEnv, "RealtimeMaxAge=2s")
	c, err := parseServeFlags(nil, os.LookupEnv, os.ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	if c.cfg.Timings.RealtimeMaxAge != 2*time.Second {
		t.Errorf("RealtimeMaxAge %v, want 2s from %s", c.cfg.Timings.RealtimeMaxAge, testTimingsEnv)
	}
	t.Setenv(testTimingsEnv, "Bogus=1s")
	if _, err := parseServeFlags(nil, os.LookupEnv, os.ReadFile); err == nil {
		t.Error("a bad ALERTD_TEST_TIMINGS was accepted")
	}
	t.Setenv(testTimingsEnv, "")
	if c, err := parseServeFlags(nil, os.LookupEnv, os.ReadFile); err != nil || c.cfg.Timings.RealtimeMaxAge != protocol.DefaultTimings().RealtimeMaxAge {
		t.Errorf("empty override: %v %v", c, err)
	}
}
