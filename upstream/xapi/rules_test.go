package xapi

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestRuleValueRoundTrip(t *testing.T) {
	v := ruleValue([]string{"alice", "bob_2"})
	if v != "from:alice OR from:bob_2" {
		t.Fatalf("value %q", v)
	}
	hs, ok := parseRule(v)
	if !ok || !slices.Equal(hs, []string{"alice", "bob_2"}) {
		t.Fatalf("parse %v %v", hs, ok)
	}
	for _, foreign := range []string{"", "from:Alice", "cat has:images", "from:a OR cat", "from:a  OR from:b", "(from:a OR from:b)"} {
		if _, ok := parseRule(foreign); ok {
			t.Errorf("%q read as ours", foreign)
		}
	}
}

func TestPackRespectsLength(t *testing.T) {
	var hs []string
	for i := range 300 {
		hs = append(hs, fmt.Sprintf("user%04d", i)) // 8 chars: "from:user0000" is 13, with " OR " 17
	}
	for _, maxLen := range []int{13, 30, 512, 1024} {
		packs := pack(hs, maxLen)
		var all []string
		for _, p := range packs {
			if v := ruleValue(p); len(v) > maxLen {
				t.Fatalf("maxLen %d: rule of %d chars", maxLen, len(v))
			}
			all = append(all, p...)
		}
		if !slices.Equal(all, hs) {
			t.Fatalf("maxLen %d: handles lost or reordered", maxLen)
		}
		// Greedy packing is optimal for equal lengths: n per rule.
		per := (maxLen + 4) / 17
		if want := (len(hs) + per - 1) / per; len(packs) != want {
			t.Errorf("maxLen %d: %d rules, want %d", maxLen, len(packs), want)
		}
	}
}

func handlesIn(rules []apiRule) []string {
	var out []string
	for _, r := range rules {
		hs, _ := parseRule(r.Value)
		out = append(out, hs...)
	}
	slices.Sort(out)
	return out
}

var ruleIDs int

// apply runs a plan on current as the API would (ids are never reused).
func apply(current []apiRule, p rulePlan) []apiRule {
	out := slices.DeleteFunc(slices.Clone(current), func(r apiRule) bool { return slices.Contains(p.Delete, r.ID) })
	for _, r := range p.Add {
		ruleIDs++
		r.ID = fmt.Sprint("r", ruleIDs)
		out = append(out, r)
	}
	return out
}

func TestPlanFollowsHandles(t *testing.T) {
	lim := Limits{MaxRules: 5, MaxRuleLen: 30} // three 2-character handles per rule
	// from start: packed into as few rules as the length allows
	p := planRules(nil, []string{"a1", "b2", "c3", "d4", "e5"}, lim)
	if len(p.Delete) != 0 || len(p.Add) != 2 || p.Add[0].Value != "from:a1 OR from:b2 OR from:c3" || p.Add[0].Tag != RuleTag {
		t.Fatalf("first plan %+v", p)
	}
	cur := apply(nil, p)

	// an add rewrites the one rule with room and leaves the full one alone
	p = planRules(cur, []string{"a1", "b2", "c3", "d4", "e5", "f6"}, lim)
	if len(p.Delete) != 1 || p.Delete[0] != cur[1].ID || len(p.Add) != 1 || p.Add[0].Value != "from:d4 OR from:e5 OR from:f6" {
		t.Fatalf("add plan %+v", p)
	}
	cur = apply(cur, p)

	// an add when every rule is full: one new rule
	p = planRules(cur, []string{"a1", "b2", "c3", "d4", "e5", "f6", "g7"}, lim)
	if len(p.Delete) != 0 || len(p.Add) != 1 || p.Add[0].Value != "from:g7" {
		t.Fatalf("add plan %+v", p)
	}
	cur = apply(cur, p)

	// a removal rewrites the rule that held the handle, folding in the
	// emptiest rule when together they fit in one
	p = planRules(cur, []string{"a1", "c3", "d4", "e5", "f6", "g7"}, lim)
	if len(p.Delete) != 2 || p.Delete[0] != cur[0].ID || len(p.Add) != 1 || p.Add[0].Value != "from:a1 OR from:c3 OR from:g7" {
		t.Fatalf("remove plan %+v", p)
	}
	cur = apply(cur, p)
	if len(cur) != 2 {
		t.Fatalf("%d rules for 6 handles: %+v", len(cur), cur)
	}
	if got := handlesIn(cur); !slices.Equal(got, []string{"a1", "c3", "d4", "e5", "f6", "g7"}) {
		t.Fatalf("rules hold %v", got)
	}

	// nothing to do when equal
	if p = planRules(cur, []string{"a1", "c3", "d4", "e5", "f6", "g7"}, lim); !p.empty() {
		t.Fatalf("idle plan %+v", p)
	}

	// everything removed
	p = planRules(cur, nil, lim)
	if len(p.Add) != 0 || len(p.Delete) != len(cur) {
		t.Fatalf("clear plan %+v", p)
	}
}

func TestPlanDeletesForeignAndBrokenRules(t *testing.T) {
	lim := Limits{MaxRules: 10, MaxRuleLen: 100}
	cur := []apiRule{
		{ID: "1", Value: "cat has:images", Tag: "someone"},
		{ID: "2", Value: "from:a1", Tag: "other-tool"},
		{ID: "3", Value: "from:a1 OR from:b2", Tag: RuleTag},
		{ID: "4", Value: "from:b2", Tag: RuleTag}, // b2 twice
	}
	p := planRules(cur, []string{"a1", "b2"}, lim)
	if !slices.Equal(p.Delete, []string{"1", "2", "4"}) || len(p.Add) != 0 {
		t.Fatalf("plan %+v", p)
	}
}

func TestPlanRepacksAtTheRuleCount(t *testing.T) {
	lim := Limits{MaxRules: 2, MaxRuleLen: 30} // 2 handles of 2 chars per rule: "from:xx OR from:yy OR from:zz" is 29
	cur := []apiRule{{ID: "1", Value: "from:a1", Tag: RuleTag}, {ID: "2", Value: "from:b2", Tag: RuleTag}}
	p := planRules(cur, []string{"a1", "b2", "c3", "d4"}, lim)
	got := apply(cur, p)
	if len(got) > lim.MaxRules {
		t.Fatalf("%d rules over the count: %+v", len(got), got)
	}
	if h := handlesIn(got); !slices.Equal(h, []string{"a1", "b2", "c3", "d4"}) {
		t.Fatalf("rules hold %v", h)
	}

	// more than fits: the rest are reported, the rules stay within limits
	want := []string{"a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8"}
	p = planRules(got, want, lim)
	got = apply(got, p)
	if len(got) != 2 || !slices.Equal(p.Unmonitored, []string{"g7", "h8"}) {
		t.Fatalf("rules %+v unmonitored %v", got, p.Unmonitored)
	}
	for _, r := range got {
		if len(r.Value) > lim.MaxRuleLen || !strings.HasPrefix(r.Value, "from:") {
			t.Fatalf("bad rule %q", r.Value)
		}
	}
}

// TestPlanStaysPackedOverManyChanges: handles added one by one and removed
// at random never leave more rules than packing from scratch would.
func TestPlanStaysPackedOverManyChanges(t *testing.T) {
	lim := Limits{MaxRules: 1000, MaxRuleLen: 120}
	var cur []apiRule
	var want []string
	for i := range 400 {
		want = append(want, fmt.Sprintf("h%03d", (i*37)%400))
		if i%7 == 3 {
			want = slices.Delete(want, i%len(want), i%len(want)+1)
		}
		sorted := slices.Clone(want)
		slices.Sort(sorted)
		cur = apply(cur, planRules(cur, sorted, lim))
		if got := handlesIn(cur); !slices.Equal(got, sorted) {
			t.Fatalf("step %d: rules hold %d handles, want %d", i, len(got), len(sorted))
		}
		if least := len(pack(sorted, lim.MaxRuleLen)); len(cur) > least {
			t.Fatalf("step %d: %d rules, packing needs %d", i, len(cur), least)
		}
	}
}
