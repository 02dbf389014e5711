package xapifake

import (
	"io"
	"net/http"
	"slices"
	"strconv"

	json "github.com/goccy/go-json"
)

// getRules is GET /2/tweets/search/stream/rules (all rules, or ids=...).
func (s *Server) getRules(w http.ResponseWriter, r *http.Request) {
	if !s.begin(w, r, EpRules) {
		return
	}
	s.mu.Lock()
	rules := slices.Clone(s.rules)
	s.mu.Unlock()
	if ids := r.URL.Query().Get("ids"); ids != "" {
		rules = slices.DeleteFunc(rules, func(x Rule) bool { return !slices.Contains(splitComma(ids), x.ID) })
	}
	body := map[string]any{"meta": map[string]any{"sent": s.sent(), "result_count": len(rules)}}
	if len(rules) > 0 {
		body["data"] = rules
	}
	writeJSON(w, http.StatusOK, body)
}

type rulesBody struct {
	Add []struct {
		Value string `json:"value"`
		Tag   string `json:"tag"`
	} `json:"add"`
	Delete *struct {
		IDs []string `json:"ids"`
	} `json:"delete"`
}

// postRules is POST /2/tweets/search/stream/rules: add or delete.
func (s *Server) postRules(w http.ResponseWriter, r *http.Request) {
	if !s.begin(w, r, EpRules) {
		return
	}
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var b rulesBody
	if err := json.Unmarshal(raw, &b); err != nil || (len(b.Add) == 0) == (b.Delete == nil) {
		writeProblem(w, http.StatusBadRequest, Problem{Title: "Invalid Request", Detail: "One or more parameters to your request was invalid.",
			Type: "https://api.twitter.com/2/problems/invalid-request"})
		return
	}
	if b.Delete != nil {
		s.deleteRules(w, b.Delete.IDs)
		return
	}
	s.mu.Lock()
	var created []Rule
	var errs []map[string]any
	invalid := 0
	for _, a := range b.Add {
		switch i := slices.IndexFunc(s.rules, func(x Rule) bool { return x.Value == a.Value }); {
		case len(a.Value) > s.opts.MaxRuleLen:
			invalid++
			errs = append(errs, map[string]any{"value": a.Value, "details": []string{"Rule must not exceed " + strconv.Itoa(s.opts.MaxRuleLen) + " characters."},
				"title": "Invalid Rule", "type": "https://api.twitter.com/2/problems/invalid-rules"})
		case i >= 0:
			errs = append(errs, map[string]any{"value": a.Value, "id": s.rules[i].ID, "title": "DuplicateRule",
				"type": "https://api.twitter.com/2/problems/duplicate-rules"})
		case len(s.rules) >= s.opts.MaxRules:
			errs = append(errs, map[string]any{"title": "RulesCapExceeded", "detail": "Rule cap exceeded",
				"type": "https://api.twitter.com/2/problems/rule-cap"})
		default:
			s.nextRule++
			nr := Rule{ID: strconv.FormatInt(s.nextRule, 10), Value: a.Value, Tag: a.Tag}
			s.rules = append(s.rules, nr)
			created = append(created, nr)
		}
	}
	s.mu.Unlock()
	body := map[string]any{"meta": map[string]any{"sent": s.sent(), "summary": map[string]int{
		"created": len(created), "not_created": len(b.Add) - len(created), "valid": len(b.Add) - invalid, "invalid": invalid}}}
	if len(created) > 0 {
		body["data"] = created
	}
	if len(errs) > 0 {
		body["errors"] = errs
	}
	writeJSON(w, http.StatusOK, body)
}

func (s *Server) deleteRules(w http.ResponseWriter, ids []string) {
	s.mu.Lock()
	var errs []map[string]any
	deleted := 0
	for _, id := range ids {
		i := slices.IndexFunc(s.rules, func(x Rule) bool { return x.ID == id })
		if i < 0 {
			errs = append(errs, map[string]any{"value": id, "title": "Not Found", "detail": "Rule does not exist",
				"type": "https://api.twitter.com/2/problems/resource-not-found"})
			continue
		}
		s.rules = slices.Delete(s.rules, i, i+1)
		deleted++
	}
	s.mu.Unlock()
	body := map[string]any{"meta": map[string]any{"sent": s.sent(), "summary": map[string]int{"deleted": deleted, "not_deleted": len(ids) - deleted}}}
	if len(errs) > 0 {
		body["errors"] = errs
	}
	writeJSON(w, http.StatusOK, body)
}
