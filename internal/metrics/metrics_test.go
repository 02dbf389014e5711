package metrics

import (
	"context"
	"io"
	"log/slog"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/latency"
	"github.com/alertd/alertd/upstream/xapi"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

func reading() Reading {
	var lat latency.Snapshot
	lat.Counts[1] = 3 // three deliveries of up to 1 ms
	lat.Counts[latency.Buckets-1] = 1
	lat.Sum = 20 * time.Second
	r := Reading{IngestAccepted: 10, IngestRejected: 2, WebhookOK: 5, WebhookRetry: 1, WebhookFailed: 1, WebhookSpilled: 3, IngestLogPending: 512, StoreBytes: 4096,
		Closes:           []Count{{"client_closed", 7}, {"key_unknown", 1}},
		RetentionDeleted: []Count{{"posts", 12}}, WSSendPath: "io_uring",
		X: &xapi.Snapshot{Posts: 4, LagMillisSum: 3000, LagCount: 4, LagMillisMax: 1500}, UpstreamRejected: 1}
	for i, s := range Sockets {
		r.Sockets = append(r.Sockets, Count{s, float64(i)})
	}
	for _, c := range Channels {
		r.Deliveries = append(r.Deliveries, Delivery{Channel: c, Count: 4, Latency: lat})
	}
	for _, q := range Queues {
		r.Queues = append(r.Queues, Count{q, 1})
	}
	return r
}

func scrape(t *testing.T, m *Metrics) map[string]*dto.MetricFamily {
	t.Helper()
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("scrape: %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("exposition does not parse: %v", err)
	}
	return fams
}

// labelValues lists the values of label across a family's series.
func labelValues(f *dto.MetricFamily, label string) []string {
	var out []string
	for _, m := range f.GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == label {
				out = append(out, l.GetValue())
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestContractFamilies: the families of CONTRACT.md section 6 with exactly
// their types and labels, every fixed label value present, and Go's and the
// process's collectors beside them.
func TestContractFamilies(t *testing.T) {
	fams := scrape(t, New(func(context.Context) Reading { return reading() }))
	sorted := func(s []string) []string { s = slices.Clone(s); sort.Strings(s); return s }
	for _, c := range []struct {
		name   string
		typ    dto.MetricType
		label  string
		values []string
	}{
		{"alertd_ws_connections", dto.MetricType_GAUGE, "socket", sorted(Sockets)},
		{"alertd_ingest_observations_total", dto.MetricType_COUNTER, "result", []string{"accepted", "rejected"}},
		{"alertd_deliveries_total", dto.MetricType_COUNTER, "channel", sorted(Channels)},
		{"alertd_delivery_latency_seconds", dto.MetricType_HISTOGRAM, "channel", sorted(Channels)},
		{"alertd_webhook_attempts_total", dto.MetricType_COUNTER, "result", []string{"failed", "ok", "retry"}},
		{"alertd_queue_depth", dto.MetricType_GAUGE, "queue", sorted(Queues)},
		{"alertd_ws_closes_total", dto.MetricType_COUNTER, "reason", []string{"client_closed", "key_unknown"}},
	} {
		f := fams[c.name]
		if f == nil {
			t.Errorf("%s missing", c.name)
			continue
		}
		if f.GetType() != c.typ {
			t.Errorf("%s is %v, want %v", c.name, f.GetType(), c.typ)
		}
		if got := labelValues(f, c.label); !slices.Equal(got, c.values) {
			t.Errorf("%s %s values %v, want %v", c.name, c.label, got, c.values)
		}
		for _, m := range f.GetMetric() {
			if len(m.GetLabel()) != 1 {
				t.Errorf("%s has labels %v, want only %s", c.name, m.GetLabel(), c.label)
			}
		}
	}
	for _, name := range []string{"go_goroutines", "process_cpu_seconds_total", "alertd_store_size_bytes",
		"alertd_webhook_spilled_total", "alertd_ingest_log_pending_bytes",
		"alertd_retention_deleted_rows_total", "alertd_upstream_observations_total", "alertd_upstream_lag_seconds"} {
		if fams[name] == nil && (name != "process_cpu_seconds_total" || processCollected()) {
			t.Errorf("%s missing", name)
		}
	}
	if fams["alertd_upstream_messages_total"] != nil {
		t.Error("launchpad families exported while the launchpad connector is off")
	}
}

// TestWSSendPath: alertd_ws_send_path is 1 for the path in use and 0 for
// the other, and absent when the engine does not say.
func TestWSSendPath(t *testing.T) {
	t.Parallel()
	fams := scrape(t, New(func(context.Context) Reading { return reading() }))
	got := map[string]float64{}
	for _, m := range fams["alertd_ws_send_path"].GetMetric() {
		got[m.GetLabel()[0].GetValue()] = m.GetGauge().GetValue()
	}
	if want := map[string]float64{"io_uring": 1, "write": 0}; !maps.Equal(got, want) {
		t.Errorf("alertd_ws_send_path %v, want %v", got, want)
	}
	fams = scrape(t, New(func(context.Context) Reading { return Reading{} }))
	if fams["alertd_ws_send_path"] != nil {
		t.Error("alertd_ws_send_path shown without a send path")
	}
}

// TestLatencyHistogram: buckets are cumulative, in seconds, with the count
// and sum of the snapshot.
func TestLatencyHistogram(t *testing.T) {
	fams := scrape(t, New(func(context.Context) Reading { return reading() }))
	h := fams["alertd_delivery_latency_seconds"].GetMetric()[0].GetHistogram()
	if h.GetSampleCount() != 4 || h.GetSampleSum() != 20 {
		t.Fatalf("count %d sum %v, want 4 and 20", h.GetSampleCount(), h.GetSampleSum())
	}
	for _, b := range h.GetBucket() {
		want := uint64(3)
		switch {
		case math.IsInf(b.GetUpperBound(), 1):
			want = 4
		case b.GetUpperBound() < 0.001:
			want = 0
		}
		if b.GetCumulativeCount() != want {
			t.Errorf("le=%v: %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), want)
		}
	}
}

// TestReadOncePerScrape: the engine's counters are read at scrape time,
// once per scrape, with a context that ends.
func TestReadOncePerScrape(t *testing.T) {
	calls := 0
	m := New(func(ctx context.Context) Reading {
		calls++
		if _, ok := ctx.Deadline(); !ok {
			t.Error("the read's context has no deadline")
		}
		return Reading{StoreBytes: -1}
	})
	if calls != 0 {
		t.Fatalf("read %d times before any scrape", calls)
	}
	fams := scrape(t, m)
	scrape(t, m)
	if calls != 2 {
		t.Errorf("read %d times for 2 scrapes", calls)
	}
	if fams["alertd_store_size_bytes"] != nil {
		t.Error("a store size that could not be read is exported")
	}
}

// TestInternalListener: /metrics without authentication and pprof's index
// on the internal address; Close stops it.
func TestInternalListener(t *testing.T) {
	in, err := ServeInternal("127.0.0.1:0", New(func(context.Context) Reading { return reading() }), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	for _, path := range []string{"/metrics", "/debug/pprof/"} {
		resp, err := http.Get("http://" + in.Addr().String() + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || len(b) == 0 {
			t.Errorf("%s: %d, %d bytes", path, resp.StatusCode, len(b))
		}
	}
}

// processCollected reports whether the process collector has data on this
// OS (Linux and Windows).
func processCollected() bool { return runtime.GOOS == "linux" || runtime.GOOS == "windows" }
