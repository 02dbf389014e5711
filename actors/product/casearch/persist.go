package casearch

import (
	"context"
	"sync"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
)

// termWriter writes post terms behind, in batches: the first post after a
// write queues one job on the engine's writer, and that job takes every post
// that came in until it runs.
type termWriter struct {
	jobs  Jobs
	store Store

	mu        sync.Mutex
	pending   []persistence.PostTerms
	scheduled bool
}

func (w *termWriter) add(p persistence.PostTerms) {
	w.mu.Lock()
	w.pending = append(w.pending, p)
	schedule := !w.scheduled
	w.scheduled = true
	w.mu.Unlock()
	if !schedule {
		return
	}
	// PutPostTerms writes only through the store's transactions: it may
	// share the store writer's batch (actors/writer.Writer.Join).
	if j, ok := w.jobs.(interface {
		Join(name string, f func(ctx context.Context) error)
	}); ok {
		j.Join("search terms", w.job())
		return
	}
	w.jobs.Do("search terms", w.job())
}

// job returns a writer job; a retry writes the same batch again.
func (w *termWriter) job() func(ctx context.Context) error {
	var batch []persistence.PostTerms
	taken := false
	return func(ctx context.Context) error {
		if !taken {
			w.mu.Lock()
			batch, w.pending, w.scheduled = w.pending, nil, false
			w.mu.Unlock()
			taken = true
		}
		return w.store.PutPostTerms(ctx, batch)
	}
}

// WarmPage is how many stored posts one warming read takes.
const WarmPage = 2000

// Warm loads the stored posts of the window into the index, oldest first,
// then marks it ready. A version already held (a tap was quicker) is kept.
// It returns early, leaving the index not ready, when ctx ends or a read
// fails.
func (sv *Service) Warm(ctx context.Context) error {
	since := time.UnixMilli(sv.ix.Floor()).UTC()
	afterAt, afterID := since.Add(-time.Millisecond), ""
	n := 0
	for {
		posts, err := sv.store.PostsCreatedSince(ctx, since, afterAt, afterID, WarmPage)
		if err != nil {
			return err
		}
		for i := range posts {
			var tw protocol.Tweet
			if err := json.Unmarshal(posts[i].Data, &tw); err != nil {
				sv.log.Warn("search warm: undecodable stored post", "id", posts[i].ID, "err", err)
				continue
			}
			d := sv.Doc(&tw)
			sv.ix.InsertIfAbsent(&d)
		}
		n += len(posts)
		if len(posts) < WarmPage {
			break
		}
		last := posts[len(posts)-1]
		afterAt, afterID = last.CreatedAt, last.ID
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	sv.ix.MarkReady()
	sv.log.Info("search index warmed", "posts", n)
	return nil
}
