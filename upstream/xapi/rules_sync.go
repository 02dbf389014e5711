package xapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"time"

	json "github.com/goccy/go-json"
	"github.com/jonboulle/clockwork"
)

// rulesPerRequest caps the rules (or ids) of one POST to the rules endpoint.
const rulesPerRequest = 100

// ruleSyncer keeps the stream's rules equal to the monitored handles: it
// reads what the API holds at start (and after any failure), then applies
// each change as a plan of deletes and adds (rules.go). It is run by one
// goroutine, which alone owns current.
type ruleSyncer struct {
	c        *client
	handles  HandleSet
	changed  <-chan struct{}
	lim      Limits
	debounce time.Duration
	clock    clockwork.Clock
	stats    *Stats
	log      *slog.Logger

	current []apiRule
	synced  bool // current mirrors the API
}

// run reconciles at start and after every change until ctx ends. A failed
// reconcile is retried with the HTTP backoff.
func (s *ruleSyncer) run(ctx context.Context) {
	var bo backoff
	for {
		wait := time.Duration(0)
		if err := s.reconcile(ctx); err != nil {
			if ctx.Err() != nil {
				return
			}
			s.synced = false
			wait = bo.next(failHTTP)
			s.log.Warn("x rules: update failed", "err", err, "retry_in", wait.String())
		} else {
			bo.reset()
		}
		if wait == 0 {
			select { // wait for a change
			case <-ctx.Done():
				return
			case <-s.changed:
			}
			wait = s.debounce // gather the changes that come with it
		}
		if !sleep(ctx, s.clock, wait) {
			return
		}
		drain(s.changed)
	}
}

// reconcile makes the API's rules match the handles now.
func (s *ruleSyncer) reconcile(ctx context.Context) error {
	if !s.synced {
		rules, err := s.fetch(ctx)
		if err != nil {
			return err
		}
		s.current, s.synced = rules, true
	}
	mon := s.handles.Monitored()
	want := make([]string, len(mon))
	for i, m := range mon {
		want[i] = m.Handle
	}
	slices.Sort(want)
	want = slices.Compact(want)
	p := planRules(s.current, want, s.lim)
	if n := int64(len(p.Unmonitored)); n != s.stats.Unmonitored.Swap(n) && n > 0 {
		s.log.Error("x rules: the plan's rule limits leave handles unmonitored", "handles", n,
			"max_rules", s.lim.MaxRules, "max_rule_length", s.lim.MaxRuleLen)
	}
	if p.empty() {
		return nil
	}
	// Adding first keeps every handle covered while its rule is rewritten;
	// when that would pass the rule count, delete first.
	if len(s.current)+len(p.Add) <= s.lim.MaxRules {
		if err := s.add(ctx, p.Add); err != nil {
			return err
		}
		return s.delete(ctx, p.Delete)
	}
	if err := s.delete(ctx, p.Delete); err != nil {
		return err
	}
	return s.add(ctx, p.Add)
}

// fetch reads every rule the API holds, page by page.
func (s *ruleSyncer) fetch(ctx context.Context) ([]apiRule, error) {
	var out []apiRule
	token := ""
	for {
		path := "/2/tweets/search/stream/rules?max_results=1000"
		if token != "" {
			path += "&pagination_token=" + url.QueryEscape(token)
		}
		var r rulesResponse
		if err := s.c.call(ctx, epRules, http.MethodGet, path, nil, &r); err != nil {
			return nil, err
		}
		out = append(out, r.Data...)
		if token = r.Meta.NextToken; token == "" {
			return out, nil
		}
	}
}

func (s *ruleSyncer) add(ctx context.Context, rules []apiRule) error {
	for len(rules) > 0 {
		n := min(len(rules), rulesPerRequest)
		var r rulesResponse
		if err := s.post(ctx, rulesRequest{Add: rules[:n]}, &r); err != nil {
			return err
		}
		s.current = append(s.current, r.Data...)
		s.stats.RuleChanges.Add(int64(len(r.Data)))
		s.log.Info("x rules added", "rules", len(r.Data))
		if len(r.Data) < n {
			// Some were refused (a duplicate, an invalid rule): read the
			// API's state again before the next plan.
			s.synced = false
			for _, p := range r.Errors {
				s.log.Warn("x rules: rule not created", "title", p.Title, "detail", p.Detail, "value", p.Value)
			}
		}
		rules = rules[n:]
	}
	return nil
}

func (s *ruleSyncer) delete(ctx context.Context, ids []string) error {
	for len(ids) > 0 {
		n := min(len(ids), rulesPerRequest)
		var r rulesResponse
		if err := s.post(ctx, rulesRequest{Delete: &ruleDeletes{IDs: ids[:n]}}, &r); err != nil {
			return err
		}
		gone := ids[:n]
		s.current = slices.DeleteFunc(s.current, func(x apiRule) bool { return slices.Contains(gone, x.ID) })
		s.stats.RuleChanges.Add(int64(r.Meta.Summary.Deleted))
		s.log.Info("x rules deleted", "rules", r.Meta.Summary.Deleted)
		if r.Meta.Summary.NotDeleted > 0 {
			s.synced = false
		}
		ids = ids[n:]
	}
	return nil
}

func (s *ruleSyncer) post(ctx context.Context, body rulesRequest, out *rulesResponse) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	return s.c.call(ctx, epRules, http.MethodPost, "/2/tweets/search/stream/rules", b, out)
}

// sleep waits d on clock; false when ctx ended first.
func sleep(ctx context.Context, clock clockwork.Clock, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := clock.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.Chan():
		return true
	}
}

// drain empties a signal channel.
func drain(ch <-chan struct{}) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}
