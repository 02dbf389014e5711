package sqlstore

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
	_ "modernc.org/sqlite"
)

// A batch write's statement is prepared on the writer once, by the
// transaction after the one that first used it, and then reused: the
// embedded engine no longer parses it in every transaction.
func TestBatchStatementPreparedOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "s.db")+"?_pragma=journal_mode(WAL)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	w.SetMaxOpenConns(1) // as the embedded store: a Batch holds the only writer connection
	s, err := New(ctx, w, nil, SQLite)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cached := func() (n int) {
		s.stmts.Range(func(_, _ any) bool { n++; return true })
		return n
	}
	post := func(id string) persistence.Post {
		return persistence.Post{ID: id, Handle: "Alice", CreatedAt: time.UnixMilli(1), DetectedAt: time.UnixMilli(2), Data: []byte(`{}`)}
	}
	before := cached()
	for i, id := range []string{"1", "2", "3"} {
		if err := s.Batch(ctx, func(ctx context.Context) error { return s.SavePosts(ctx, []persistence.Post{post(id)}) }); err != nil {
			t.Fatal(err)
		}
		want := before
		if i > 0 {
			want++ // prepared before the second batch began
		}
		if got := cached(); got != want {
			t.Fatalf("after batch %d: %d statements cached, want %d", i+1, got, want)
		}
	}
	for _, id := range []string{"1", "2", "3"} {
		p, err := s.PostByID(ctx, id)
		if err != nil || p.Handle != "alice" {
			t.Fatalf("post %s: %+v, %v", id, p, err)
		}
	}
}
