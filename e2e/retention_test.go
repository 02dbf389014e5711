package e2e

import (
	"errors"
	"testing"
	"time"

	"github.com/alertd/alertd/engine"
	"github.com/alertd/alertd/internal/testkit"
	"github.com/alertd/alertd/persistence"
)

// TestRetention: with a retention of two seconds, a stored post, an
// observation and a trace record go once they are older than that, and
// /metrics counts them.
func TestRetention(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServer(t, serverOpts{dbURL: m.DatabaseURL(t), configure: func(c *engine.Config) {
			c.Retention, c.RetentionEvery = 2*time.Second, 100*time.Millisecond
		}})
		h := newHandle("retention")
		s.newDT(t, "enterprise", nil, h)
		p := postObs(h, "post", "kept two seconds")
		s.send(t, p, followersObs(h, jsonMap{"id": newUserID(), "handle": newHandle("fan"), "name": "A Fan"}))
		s.sync(t)
		st := s.eng.Store()
		id := p["id"].(string)
		if _, err := st.PostByID(t.Context(), id); err != nil {
			t.Fatalf("the post is not stored after Sync: %v", err)
		}
		created := time.UnixMilli(p["created_at"].(int64))
		if tr, err := st.TraceWindow(t.Context(), h, created.Add(-time.Minute), created.Add(time.Minute), 10); err != nil || len(tr) == 0 {
			t.Fatalf("no trace record of the new follower: %v %v", tr, err)
		}
		if obs, err := st.ListObservations(t.Context(), "followers_new", created.Add(-time.Minute), 10); err != nil || len(obs) == 0 {
			t.Fatalf("no observation record: %v %v", obs, err)
		}
		testkit.WaitFor(t, 20*time.Second, "the post pruned", func() (bool, string) {
			_, err := st.PostByID(t.Context(), id)
			return errors.Is(err, persistence.ErrNotFound), "still stored"
		})
		testkit.WaitFor(t, 20*time.Second, "the trace record and the observation pruned", func() (bool, string) {
			tr, err1 := st.TraceWindow(t.Context(), h, created.Add(-time.Minute), created.Add(time.Minute), 10)
			obs, err2 := st.ListObservations(t.Context(), "followers_new", created.Add(-time.Minute), 10)
			return err1 == nil && err2 == nil && len(tr) == 0 && len(obs) == 0, "still stored"
		})
		if n := s.metrics(t).value("alertd_retention_deleted_rows_total", "table", "posts"); n < 1 {
			t.Errorf("alertd_retention_deleted_rows_total{table=posts} = %v", n)
		}
	})
}
