package xapi

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/alertd/alertd/upstream/xapi/xapifake"
	"github.com/jonboulle/clockwork"
)

func ruleHandles(rules []xapifake.Rule) []string {
	var out []string
	for _, r := range rules {
		hs, ok := parseRule(r.Value)
		if !ok || r.Tag != RuleTag {
			return append(out, "foreign:"+r.Value)
		}
		out = append(out, hs...)
	}
	slices.Sort(out)
	return out
}

func TestRulesFollowTheHandleSet(t *testing.T) {
	ctx := ctxT(t)
	fake := xapifake.New(xapifake.Options{MaxRuleLen: 30})
	base := fake.Start()
	t.Cleanup(fake.Close)
	stats := &Stats{}
	clock := clockwork.NewFakeClockAt(testStart)
	// The API already holds another tool's rule and a stale rule of ours.
	pre := &ruleSyncer{c: testClient(fake, base, clock, stats), lim: Limits{MaxRules: 10, MaxRuleLen: 30}, stats: stats, log: quietLog()}
	if err := pre.post(ctx, rulesRequest{Add: []apiRule{{Value: "cat has:images", Tag: "x"}, {Value: "from:gone1", Tag: RuleTag}}}, &rulesResponse{}); err != nil {
		t.Fatal(err)
	}
	hs := newHandleSet("a1", "b2", "c3", "d4")
	rs := &ruleSyncer{c: testClient(fake, base, clock, stats), handles: hs, changed: hs.ch, lim: Limits{MaxRules: 10, MaxRuleLen: 30},
		debounce: time.Second, clock: clock, stats: stats, log: quietLog()}
	ctx2, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { rs.run(ctx2); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	want := func(what string, handles ...string) {
		t.Helper()
		waitFor(t, ctx, what, func() bool { return slices.Equal(ruleHandles(fake.Rules()), handles) })
	}
	want("reconciled at start", "a1", "b2", "c3", "d4")
	if n := len(fake.Rules()); n != 2 { // three 2-char handles fit in 30 chars
		t.Fatalf("%d rules: %+v", n, fake.Rules())
	}
	hs.Set("a1", "b2", "c3", "d4", "e5")
	if err := clock.BlockUntilContext(ctx, 1); err != nil { // the debounce
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	want("add", "a1", "b2", "c3", "d4", "e5")
	hs.Set("a1", "c3", "e5")
	if err := clock.BlockUntilContext(ctx, 1); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	want("remove", "a1", "c3", "e5")
	if stats.RuleChanges.Load() == 0 {
		t.Fatal("rule changes not counted")
	}
}
