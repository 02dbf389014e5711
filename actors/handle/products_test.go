package handle

import (
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/kit"
	"github.com/asynkron/protoactor-go/actor"
)

// product is a subscriber as the products are: Hear tells its own kit
// singleton, which does the work.
type product struct{ ref *kit.Ref }

func (p product) Hear(c any) { p.ref.Tell(c) }

// productActor counts the posts it handles; it panics on the ids in poison
// and waits for gate before each post when gate is set.
type productActor struct {
	handled *atomic.Int64
	poison  map[string]bool
	gate    chan struct{}
}

func (a *productActor) Receive(c actor.Context) {
	if m, ok := c.Message().(*PostSeen); ok {
		if a.gate != nil {
			<-a.gate
		}
		if a.poison[m.Obs.Post.ID] {
			panic("product bug")
		}
		a.handled.Add(1)
	}
}

// spawnProduct spawns the product under a kit of its own over g's actor
// system and subscribes it to the posts seen.
func spawnProduct(t *testing.T, g *life, subs *Subscriptions, a func() *productActor) *kit.Kit {
	t.Helper()
	sys := g.sys
	k, err := kit.New(sys, kit.WithLogger(slog.New(slog.DiscardHandler)), kit.WithBackoff(kit.Backoff{Initial: time.Microsecond, Max: time.Microsecond, Window: time.Minute}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(k.Close)
	ref, err := k.Spawn(t.Context(), "product", func() actor.Actor { return a() })
	if err != nil {
		t.Fatal(err)
	}
	subs.PostSeen = []Subscriber{product{ref}}
	return k
}

func posts(g *life, t *testing.T, n int) {
	now := time.Now().UnixMilli()
	for i := range n {
		g.r.Route(decode(t, fmt.Sprintf(`{"kind":"post","id":"%d","created_at":%d,"type":"post","text":"gm","author":{"id":"7","handle":"h%d"}}`,
			i, now, i%10), now))
	}
}

// TestPanickingProductDoesNotStallIngest: a product that panics on some
// posts restarts on its own actor; the handle actors never see it, ingest
// drains, nothing is logged against them, and the product goes on with the
// posts behind the poisoned ones.
func TestPanickingProductDoesNotStallIngest(t *testing.T) {
	var handled atomic.Int64
	poison := map[string]bool{}
	for i := 0; i < 200; i += 2 {
		poison[fmt.Sprint(i)] = true
	}
	subs := &Subscriptions{}
	g := newLife(t, &Deps{Subs: subs})
	k := spawnProduct(t, g, subs, func() *productActor { return &productActor{handled: &handled, poison: poison} })
	posts(g, t, 200)
	g.settle(t)
	if err := k.Barrier(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := handled.Load(); n != 100 {
		t.Errorf("the product handled %d posts, want the 100 unpoisoned ones", n)
	}
	if errs := g.logs.errors(); len(errs) != 0 {
		t.Errorf("the handle actors logged %v", errs)
	}
	if n := g.lost.Load(); n != 0 {
		t.Errorf("%d observations lost", n)
	}
}

// TestSlowProductDoesNotStallIngest: while a product is stuck, the handle
// actors handle every observation (the backlog drains); the product gets
// them all once it moves again.
func TestSlowProductDoesNotStallIngest(t *testing.T) {
	var handled atomic.Int64
	gate := make(chan struct{})
	subs := &Subscriptions{}
	g := newLife(t, &Deps{Subs: subs})
	k := spawnProduct(t, g, subs, func() *productActor { return &productActor{handled: &handled, gate: gate} })
	posts(g, t, 200)
	g.settle(t) // would time out if the handle actors waited for the product
	if n := handled.Load(); n != 0 {
		t.Fatalf("the stuck product handled %d", n)
	}
	close(gate)
	if err := k.Barrier(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := handled.Load(); n != 200 {
		t.Errorf("the product handled %d posts, want 200", n)
	}
}
