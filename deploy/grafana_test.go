package deploy

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/alertd/alertd/internal/metrics"
	"github.com/alertd/alertd/upstream/launchpad"
	"github.com/alertd/alertd/upstream/xapi"
)

// TestGrafanaDashboard: grafana-dashboard.json is a dashboard whose every
// query reads families /metrics has (so a renamed metric cannot leave a
// panel empty), on the data source chosen at import, and that shows every
// family of CONTRACT.md section 6.
func TestGrafanaDashboard(t *testing.T) {
	var d struct {
		Inputs []struct{ Name string } `json:"__inputs"`
		Panels []struct {
			Title   string
			Type    string
			Targets []struct {
				Expr       string
				Datasource struct{ UID string }
			}
		}
	}
	src := read(t, "grafana-dashboard.json")
	if err := json.Unmarshal([]byte(src), &d); err != nil {
		t.Fatalf("grafana-dashboard.json: %v", err)
	}
	if len(d.Inputs) != 1 || d.Inputs[0].Name != "DS_PROMETHEUS" {
		t.Errorf("inputs %+v, want the one Prometheus data source", d.Inputs)
	}
	exposed := exposedFamilies(t)
	name := regexp.MustCompile(`\b((?:alertd|go|process)_[a-z_]+)\b`)
	shown := map[string]bool{}
	for _, p := range d.Panels {
		if p.Type != "row" && len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, q := range p.Targets {
			if q.Datasource.UID != "${DS_PROMETHEUS}" {
				t.Errorf("panel %q queries data source %q", p.Title, q.Datasource.UID)
			}
			for _, m := range name.FindAllString(q.Expr, -1) {
				fam := m
				for _, suffix := range []string{"_bucket", "_sum", "_count"} {
					if base := strings.TrimSuffix(m, suffix); base != m && exposed[base] {
						fam = base
					}
				}
				if !exposed[fam] {
					t.Errorf("panel %q reads %s, which /metrics does not expose", p.Title, m)
				}
				shown[fam] = true
			}
		}
	}
	for _, f := range []string{"alertd_ws_connections", "alertd_ingest_observations_total", "alertd_deliveries_total",
		"alertd_delivery_latency_seconds", "alertd_webhook_attempts_total", "alertd_queue_depth", "alertd_ws_closes_total"} {
		if !shown[f] {
			t.Errorf("no panel shows %s", f)
		}
	}
}

// exposedFamilies scrapes the metrics of an engine with both connectors on.
func exposedFamilies(t *testing.T) map[string]bool {
	m := metrics.New(func(context.Context) metrics.Reading {
		return metrics.Reading{X: &xapi.Snapshot{}, Launchpad: &launchpad.Snapshot{}, StoreBytes: 1,
			Closes: []metrics.Count{{Label: "client_closed"}}, RetentionDeleted: []metrics.Count{{Label: "posts"}},
			Sockets: []metrics.Count{{Label: "realtime"}}, Queues: []metrics.Count{{Label: "ingest"}},
			Deliveries: []metrics.Delivery{{Channel: "realtime"}}}
	})
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	out := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if f, ok := strings.CutPrefix(line, "# TYPE "); ok {
			out[strings.Fields(f)[0]] = true
		}
	}
	return out
}
