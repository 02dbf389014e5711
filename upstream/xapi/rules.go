package xapi

import (
	"slices"
	"strings"
)

// RuleTag tags the filtered-stream rules the connector writes.
const RuleTag = "alertd"

const (
	fromOp = "from:"
	orOp   = " OR "
)

// Limits are the plan's rule limits (docs.x.com filtered stream
// introduction): Pro allows 1,000 rules of up to 1,024 characters,
// Enterprise 25,000 or more of up to 2,048.
type Limits struct {
	MaxRules   int
	MaxRuleLen int
}

// ProLimits are the Pro plan's limits, the defaults.
var ProLimits = Limits{MaxRules: 1000, MaxRuleLen: 1024}

// rulePlan is what makes the stream's rules equal the monitored handles:
// rule ids to delete, rules to add, and the handles that do not fit.
type rulePlan struct {
	Delete      []string
	Add         []apiRule
	Unmonitored []string
}

func (p rulePlan) empty() bool { return len(p.Delete) == 0 && len(p.Add) == 0 }

// ruleValue is `from:a OR from:b ...`.
func ruleValue(handles []string) string {
	var b strings.Builder
	n := 0
	for _, h := range handles {
		n += len(fromOp) + len(h) + len(orOp)
	}
	b.Grow(n)
	for i, h := range handles {
		if i > 0 {
			b.WriteString(orOp)
		}
		b.WriteString(fromOp)
		b.WriteString(h)
	}
	return b.String()
}

// parseRule reads a value written by ruleValue; ok is false for any other
// rule (a hand-written one, another tool's).
func parseRule(v string) (handles []string, ok bool) {
	if v == "" {
		return nil, false
	}
	for _, term := range strings.Split(v, orOp) {
		h, found := strings.CutPrefix(term, fromOp)
		if !found || !validHandle(h) {
			return nil, false
		}
		handles = append(handles, h)
	}
	return handles, true
}

// validHandle accepts what the engine monitors: lowercase letters, digits
// and underscores (protocol.ValidHandle, kept local so that a rule another
// tool wrote in upper case is not mistaken for ours).
func validHandle(h string) bool {
	if h == "" || len(h) > 50 {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// pack puts sorted handles into as few values as fit maxLen, greedily in
// order (handles are at most 50 characters, far under any plan's length).
func pack(handles []string, maxLen int) [][]string {
	var out [][]string
	var cur []string
	n := 0
	for _, h := range handles {
		add := len(fromOp) + len(h)
		if len(cur) > 0 {
			add += len(orOp)
		}
		if len(cur) > 0 && n+add > maxLen {
			out = append(out, cur)
			cur, n = nil, 0
			add = len(fromOp) + len(h)
		}
		cur = append(cur, h)
		n += add
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// planRules compares the rules the API holds with the wanted handles
// (sorted, unique) and plans as few rule changes as keep the rules packed
// into as few rules as the length allows. Every rule of ours that still
// names only wanted handles is kept; a removed handle rewrites its rule;
// new handles and those of rewritten rules are packed together; while that
// gives more rules than packing everything afresh would, the emptiest kept
// rule is dissolved into the new ones too (so an add usually rewrites the
// one rule with room). Handles beyond the plan's rule count are reported
// unmonitored.
func planRules(current []apiRule, want []string, lim Limits) rulePlan {
	wanted := make(map[string]bool, len(want))
	for _, h := range want {
		wanted[h] = true
	}
	covered := make(map[string]bool, len(want))
	var p rulePlan
	var kept []apiRule
	for _, r := range current {
		hs, ok := parseRule(r.Value)
		keep := ok && r.Tag == RuleTag && len(r.Value) <= lim.MaxRuleLen
		for _, h := range hs {
			if !keep {
				break
			}
			keep = wanted[h] && !covered[h]
		}
		if !keep {
			p.Delete = append(p.Delete, r.ID)
			continue
		}
		kept = append(kept, r)
		for _, h := range hs {
			covered[h] = true
		}
	}
	least := len(pack(want, lim.MaxRuleLen))
	if least > lim.MaxRules {
		return repack(current, want, lim)
	}
	// emptiest first: the first to give up its handles
	slices.SortStableFunc(kept, func(a, b apiRule) int { return len(a.Value) - len(b.Value) })
	var loose []string
	for _, h := range want {
		if !covered[h] {
			loose = append(loose, h)
		}
	}
	fresh := pack(loose, lim.MaxRuleLen)
	for len(kept)+len(fresh) > least {
		hs, _ := parseRule(kept[0].Value)
		p.Delete = append(p.Delete, kept[0].ID)
		kept = kept[1:]
		loose = append(loose, hs...)
		slices.Sort(loose)
		fresh = pack(loose, lim.MaxRuleLen)
	}
	for _, hs := range fresh {
		p.Add = append(p.Add, apiRule{Value: ruleValue(hs), Tag: RuleTag})
	}
	return p
}

// repack packs every wanted handle from scratch.
func repack(current []apiRule, want []string, lim Limits) rulePlan {
	var p rulePlan
	all := pack(want, lim.MaxRuleLen)
	if len(all) > lim.MaxRules {
		for _, hs := range all[lim.MaxRules:] {
			p.Unmonitored = append(p.Unmonitored, hs...)
		}
		all = all[:lim.MaxRules]
	}
	values := make([]string, len(all))
	for i, hs := range all {
		values[i] = ruleValue(hs)
	}
	for _, r := range current {
		if i := slices.Index(values, r.Value); i >= 0 && r.Tag == RuleTag {
			values[i] = "" // already there
			continue
		}
		p.Delete = append(p.Delete, r.ID)
	}
	for _, v := range values {
		if v != "" {
			p.Add = append(p.Add, apiRule{Value: v, Tag: RuleTag})
		}
	}
	return p
}
