package e2e

// GET /metrics (CONTRACT.md section 6): behind the admin bearer on the
// public listener, or on --internal-addr with pprof; the families move with
// what the engine does.

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/engine"
	"github.com/alertd/alertd/internal/testkit"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

func TestMetrics(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServer(t, serverOpts{dbURL: m.DatabaseURL(t)})
		s.do(t, "GET", "/metrics", nil, nil).wantErr(t, 401, "unauthorized")
		before := s.metrics(t)

		h := newHandle("metrics")
		a := s.newDT(t, "enterprise", nil, h)
		w, _ := s.rtLogin(t, a.key)
		post := postObs(h, "post", "counted and timed")
		s.send(t, post)
		wantIngest(t, s.ingest(t, "application/x-ndjson", `{"kind":"post","id":"not a post"}`), 0, 0)
		wantPostEvent(t, w.nextEvent(t), "social.post.new", post, true)

		// The socket's writer counts a frame right after its write, which
		// may be after the client read it.
		var got families
		testkit.WaitFor(t, 10*time.Second, "the delivery counted", func() (bool, string) {
			got = s.metrics(t)
			n := got.value("alertd_deliveries_total", "channel", "realtime")
			return n >= before.value("alertd_deliveries_total", "channel", "realtime")+1, "not yet"
		})
		if n := got.histogramCount("alertd_delivery_latency_seconds", "channel", "realtime"); n < 1 {
			t.Errorf("no realtime latency observed (count %d)", n)
		}
		if got.value("alertd_ingest_observations_total", "result", "accepted") < 1 ||
			got.value("alertd_ingest_observations_total", "result", "rejected") < 1 {
			t.Errorf("ingest counters did not move: %v", got["alertd_ingest_observations_total"])
		}
		if n := got.value("alertd_ws_connections", "socket", "realtime"); n != 1 {
			t.Errorf("alertd_ws_connections{socket=realtime} = %v, want 1", n)
		}
		// One path in use: io_uring by default, write where it fell back
		// or ALERTD_TEST_WS_SEND=write.
		if n := got.value("alertd_ws_send_path", "path", "io_uring") + got.value("alertd_ws_send_path", "path", "write"); n != 1 {
			t.Errorf("alertd_ws_send_path sums to %v, want 1: %v", n, got["alertd_ws_send_path"])
		}
		if got.value("alertd_store_size_bytes", "", "") <= 0 {
			t.Error("alertd_store_size_bytes not positive")
		}
		for _, name := range []string{"alertd_queue_depth", "alertd_webhook_attempts_total", "go_goroutines"} {
			if got[name] == nil {
				t.Errorf("%s missing", name)
			}
		}

		w.CloseGracefully()
		testkit.WaitFor(t, 10*time.Second, "the close counted", func() (bool, string) {
			got = s.metrics(t)
			return got.value("alertd_ws_closes_total", "reason", "client_closed") >= 1 &&
				got.value("alertd_ws_connections", "socket", "realtime") == 0, "not yet"
		})
	})
}

// TestMetricsInternalAddr: with --internal-addr, /metrics and pprof are
// there, without authentication, and /metrics is not on the public
// listener; without it, pprof is nowhere.
func TestMetricsInternalAddr(t *testing.T) {
	if testing.Short() {
		t.Skip("end to end")
	}
	t.Parallel()
	s := startServer(t, serverOpts{configure: func(c *engine.Config) { c.InternalAddr = "127.0.0.1:0" }})
	s.do(t, "GET", "/metrics", bearer(s.admin), nil).wantPlain(t, 404)
	s.do(t, "GET", "/debug/pprof/", nil, nil).wantPlain(t, 404)
	internal := "http://" + s.eng.InternalAddr().String()
	for _, path := range []string{"/metrics", "/debug/pprof/"} {
		r, err := httpClient.Get(internal + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if r.StatusCode != 200 {
			t.Errorf("internal %s: %d %s", path, r.StatusCode, b)
		}
		if path == "/metrics" && !bytes.Contains(b, []byte("alertd_ws_connections")) {
			t.Errorf("internal /metrics has no alertd families: %.300s", b)
		}
	}
}

// families is a parsed scrape.
type families map[string]*dto.MetricFamily

// metrics scrapes the public /metrics with the admin token.
func (s *server) metrics(t *testing.T) families {
	t.Helper()
	r := s.do(t, "GET", "/metrics", bearer(s.admin), nil)
	if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/plain") {
		t.Fatalf("%s", r)
	}
	var p expfmt.TextParser
	f, err := p.TextToMetricFamilies(bytes.NewReader(r.body))
	if err != nil {
		t.Fatalf("/metrics does not parse: %v", err)
	}
	return f
}

// series finds the series of name whose label has value ("" label: the
// family's only series).
func (f families) series(name, label, value string) *dto.Metric {
	fam := f[name]
	if fam == nil {
		return nil
	}
	for _, m := range fam.GetMetric() {
		if label == "" {
			return m
		}
		for _, l := range m.GetLabel() {
			if l.GetName() == label && l.GetValue() == value {
				return m
			}
		}
	}
	return nil
}

// value is a counter's or gauge's value; 0 when the series is absent.
func (f families) value(name, label, value string) float64 {
	m := f.series(name, label, value)
	switch {
	case m == nil:
		return 0
	case m.Counter != nil:
		return m.GetCounter().GetValue()
	case m.Gauge != nil:
		return m.GetGauge().GetValue()
	}
	return 0
}

func (f families) histogramCount(name, label, value string) uint64 {
	if m := f.series(name, label, value); m != nil {
		return m.GetHistogram().GetSampleCount()
	}
	return 0
}
