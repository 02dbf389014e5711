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

// apply runs a plan on current as the API would.
func apply(current []apiRule, p rulePlan) []apiRule {
	out := slices.DeleteFunc(slices.Clone(current), func(r apiRule) bool { return slices.Contains(p.Delete, r.ID) })
	for i, r := range p.Add {
		r.ID = fmt.Sprintf("r%d_%d", len(current), i)
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

	// an add leaves existing rules alone and adds one rule
	p = planRules(cur, []string{"a1", "b2", "c3", "d4", "e5", "f6"}, lim)
	if len(p.Delete) != 0 || len(p.Add) != 1 || p.Add[0].Value != "from:f6" {
		t.Fatalf("add plan %+v", p)
	}
	cur = apply(cur, p)

	// a removal rewrites only the rule that held the handle
	p = planRules(cur, []string{"a1", "c3", "d4", "e5", "f6"}, lim)
	if len(p.Delete) != 1 || p.Delete[0] != cur[0].ID || len(p.Add) != 1 || p.Add[0].Value != "from:a1 OR from:c3" {
		t.Fatalf("remove plan %+v", p)
	}
	cur = apply(cur, p)
	if got := handlesIn(cur); !slices.Equal(got, []string{"a1", "c3", "d4", "e5", "f6"}) {
		t.Fatalf("rules hold %v", got)
	}

	// nothing to do when equal
	if p = planRules(cur, []string{"a1", "c3", "d4", "e5", "f6"}, lim); !p.empty() {
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
