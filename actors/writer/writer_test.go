package writer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
)

// fakeStore records batches and fails the first failPosts SavePosts calls.
type fakeStore struct {
	persistence.DirectoryStore
	persistence.ObservationStore
	persistence.TraceStore
	mu        sync.Mutex
	failPosts int
	posts     [][]persistence.Post
	users     [][]persistence.User
}

func (f *fakeStore) SavePosts(_ context.Context, p []persistence.Post) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failPosts > 0 {
		f.failPosts--
		return errors.New("store down")
	}
	f.posts = append(f.posts, append([]persistence.Post(nil), p...))
	return nil
}

func (f *fakeStore) UpsertUsers(_ context.Context, u []persistence.User) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.users = append(f.users, append([]persistence.User(nil), u...))
	return nil
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestBatchesDedupeAndRetry(t *testing.T) {
	fs := &fakeStore{failPosts: 2}
	w := New(fs, Options{MaxBatch: 1000, Interval: time.Hour, Logger: quiet()})
	w.Post(persistence.Post{ID: "1", Data: []byte("a")})
	w.Post(persistence.Post{ID: "2", Data: []byte("b")})
	w.Post(persistence.Post{ID: "1", Data: []byte("c")})
	w.User(persistence.User{ID: "9", Handle: "x"})
	if err := w.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	w.Stop()
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if len(fs.posts) != 1 {
		t.Fatalf("want one posts batch after retries, got %d", len(fs.posts))
	}
	b := fs.posts[0]
	if len(b) != 2 || b[0].ID != "1" || string(b[0].Data) != "c" || b[1].ID != "2" {
		t.Fatalf("dedupe: %+v", b)
	}
	if len(fs.users) != 1 || fs.users[0][0].ID != "9" {
		t.Fatalf("users: %+v", fs.users)
	}
}

func TestStopFlushesAndMaxBatch(t *testing.T) {
	fs := &fakeStore{}
	w := New(fs, Options{MaxBatch: 10, Interval: time.Hour, Logger: quiet()})
	for i := 0; i < 25; i++ {
		w.Post(persistence.Post{ID: string(rune('a' + i))})
	}
	w.Stop()
	fs.mu.Lock()
	defer fs.mu.Unlock()
	n := 0
	for _, b := range fs.posts {
		if len(b) > 10 {
			t.Fatalf("batch of %d over MaxBatch", len(b))
		}
		n += len(b)
	}
	if n != 25 {
		t.Fatalf("stop wrote %d of 25", n)
	}
}

// batchStore is a fakeStore that joins the writer's records in one
// transaction (Batcher); a failed batch (failBatch) rolls back what it wrote.
type batchStore struct {
	fakeStore
	batches, failBatch int
	wrap               func(context.Context) context.Context // marks the batch's context
}

func (f *batchStore) Batch(ctx context.Context, fn func(ctx context.Context) error) error {
	f.mu.Lock()
	np, nu := len(f.posts), len(f.users)
	f.mu.Unlock()
	if f.wrap != nil {
		ctx = f.wrap(ctx)
	}
	err := fn(ctx)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err == nil && f.failBatch > 0 {
		f.failBatch--
		err = errors.New("commit failed")
	}
	if err != nil {
		f.posts, f.users = f.posts[:np], f.users[:nu]
		return err
	}
	f.batches++
	return nil
}

func TestRecordsInOneBatch(t *testing.T) {
	for _, fail := range []int{0, 1} {
		fs := &batchStore{failBatch: fail}
		w := New(fs, Options{MaxBatch: 1000, Interval: time.Hour, Logger: quiet()})
		w.Post(persistence.Post{ID: "1"})
		w.User(persistence.User{ID: "9", Handle: "x"})
		if err := w.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		w.Stop()
		fs.mu.Lock()
		// A failed batch is written again kind by kind, each once.
		if want := 1 - fail; fs.batches != want || len(fs.posts) != 1 || len(fs.users) != 1 {
			t.Errorf("failBatch %d: %d batches (want %d), %d posts and %d users writes (want 1 each)", fail, fs.batches, want, len(fs.posts), len(fs.users))
		}
		fs.mu.Unlock()
	}
}

// A store that fails many times in a row (more than any fixed retry count)
// loses nothing: the batch is written once the store takes it, and Flush
// returns only then.
func TestStoreFailingNTimesLosesNothing(t *testing.T) {
	const failures = 40
	fs := &fakeStore{failPosts: failures}
	w := New(fs, Options{MaxBatch: 1000, Interval: time.Hour, Backoff: time.Microsecond, MaxBackoff: time.Millisecond, Logger: quiet()})
	for i := range 100 {
		w.Post(persistence.Post{ID: string(rune('A' + i))})
	}
	if err := w.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	fs.mu.Lock()
	left := fs.failPosts
	n := 0
	for _, b := range fs.posts {
		n += len(b)
	}
	fs.mu.Unlock()
	if left != 0 || n != 100 {
		t.Fatalf("after Flush: %d failures left, %d of 100 posts written", left, n)
	}
	w.Stop()
	if w.Abandoned() != 0 {
		t.Fatalf("abandoned %d", w.Abandoned())
	}
}

// At Stop, a store that never recovers is given up after StopGrace, and
// what was given up is counted (the ingest log replays it).
func TestStopGivesUpAndCounts(t *testing.T) {
	fs := &fakeStore{failPosts: 1 << 30}
	w := New(fs, Options{MaxBatch: 1000, Interval: time.Hour, Backoff: time.Microsecond, MaxBackoff: time.Millisecond,
		StopGrace: time.Millisecond, Logger: quiet()})
	w.Post(persistence.Post{ID: "1"})
	w.Post(persistence.Post{ID: "2"})
	w.Stop()
	if w.Abandoned() != 2 {
		t.Fatalf("abandoned %d, want 2", w.Abandoned())
	}
}

type inBatchKey struct{}

// A joined job (Join) runs in the batch's transaction, after the records; a
// job queued with Do runs on its own. When the batch fails, the joined job
// runs again on its own, once.
func TestJoinRunsInTheBatch(t *testing.T) {
	for _, fail := range []int{0, 1} {
		fs := &batchStore{failBatch: fail}
		w := New(fs, Options{MaxBatch: 1000, Interval: time.Hour, Logger: quiet()})
		var mu sync.Mutex
		var runs []string
		job := func(name string) func(ctx context.Context) error {
			return func(ctx context.Context) error {
				mu.Lock()
				defer mu.Unlock()
				in := ctx.Value(inBatchKey{}) != nil
				runs = append(runs, fmt.Sprintf("%s in batch %v", name, in))
				return nil
			}
		}
		fs.wrap = func(ctx context.Context) context.Context { return context.WithValue(ctx, inBatchKey{}, true) }
		w.Post(persistence.Post{ID: "1"})
		w.Join("joined", job("joined"))
		w.Do("alone", job("alone"))
		if err := w.Flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		w.Stop()
		want := "[joined in batch true alone in batch false]"
		if fail == 1 {
			want = "[joined in batch true joined in batch false alone in batch false]"
		}
		mu.Lock()
		if got := fmt.Sprint(runs); got != want {
			t.Errorf("failBatch %d: runs %s, want %s", fail, got, want)
		}
		mu.Unlock()
	}
}
