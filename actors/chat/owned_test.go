package chat

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/alertd/alertd/persistence"
	"github.com/asynkron/protoactor-go/actor"
)

// fakeOwners is one node's view of which chats it owns; queued records
// what it announced.
type fakeOwners struct {
	mu     sync.Mutex
	owned  map[int64]bool
	queued []int64
}

func (f *fakeOwners) Owns(scope string, key int64) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return scope == Scope && f.owned[key]
}

func (f *fakeOwners) Queued(scope string, keys []int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if scope == Scope {
		f.queued = append(f.queued, keys...)
	}
}

func (f *fakeOwners) set(chat int64, owned bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.owned[chat] = owned
}

func (f *fakeOwners) announced() []int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.queued)
}

// node is one cluster node's outbox over a store shared with the others.
type node struct {
	o      *Outbox
	api    *fakeAPI
	owners *fakeOwners
}

func newNode(t *testing.T, st *memStore, lim Limits) *node {
	t.Helper()
	reg := NewChats(st)
	if err := reg.Load(t.Context()); err != nil {
		t.Fatal(err)
	}
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return slog.New(slog.DiscardHandler) }))
	n := &node{api: newFakeAPI(), owners: &fakeOwners{owned: map[int64]bool{}}}
	n.o = NewOutbox(Config{API: n.api, Store: st, Chats: reg, Limits: lim, System: sys, Log: slog.New(slog.DiscardHandler), Owners: n.owners})
	if err := n.o.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		n.o.Stop()
		sys.Shutdown()
	})
	return n
}

func chatStore(chats ...int64) *memStore {
	st := newMemStore()
	for _, c := range chats {
		_ = st.PutChat(context.Background(), persistence.Chat{ChatID: c, AccountID: "a"})
	}
	return st
}

// TestOutboxNotOwnerStoresAndAnnounces: a message queued on a node that
// does not own its chat is stored and named to the owner, not sent; the
// owner reads the chat's queue back when woken and sends it once, in order;
// a secret message (never stored) goes from the node that made it.
func TestOutboxNotOwnerStoresAndAnnounces(t *testing.T) {
	st := chatStore(1)
	a, b := newNode(t, st, fast()), newNode(t, st, fast())
	b.owners.set(1, true)
	b.o.Take(func(c int64) bool { return c == 1 })
	if err := a.o.Queue(t.Context(), []*Message{msg("m1", 1, "one"), msg("m2", 1, "two")}, 0); err != nil {
		t.Fatal(err)
	}
	secret := &Message{ID: "key", Chat: 1, Text: "your key", Secret: true}
	if err := a.o.Queue(t.Context(), []*Message{secret}, 0); err != nil {
		t.Fatal(err)
	}
	a.api.await(t, "sent", 1)
	if got := a.api.sends(); len(got) != 1 || got[0] != "1/0/your key" {
		t.Fatalf("the node that does not own the chat sent %v, want only the secret message", got)
	}
	if got := a.owners.announced(); !slices.Equal(got, []int64{1, 1}) {
		t.Fatalf("announced %v, want chat 1 once per Queue", got)
	}
	b.o.Wake(a.owners.announced())
	b.api.await(t, "sent", 2)
	testWait(t, func() bool { return st.queued() == 0 })
	b.o.Sweep() // reads the store, finds nothing waiting
	if err := b.o.Queue(t.Context(), []*Message{msg("m3", 1, "three")}, 0); err != nil {
		t.Fatal(err)
	}
	b.api.await(t, "sent", 1)
	testWait(t, func() bool { return st.queued() == 0 && a.o.Stats().Queued == 0 && b.o.Stats().Queued == 0 })
	if got := strings.Join(b.api.sends(), ","); got != "1/0/one,1/0/two,1/0/three" {
		t.Fatalf("the owner sent %s", got)
	}
	if got := a.api.sends(); len(got) != 1 {
		t.Fatalf("the other node sent %v", got)
	}
}

// TestOutboxYieldWaitsForTheCallInFlight: Yield returns only once the call
// in flight is back and its outcome is in the store; the node that takes
// the chat then sends the rest, and nothing twice.
func TestOutboxYieldWaitsForTheCallInFlight(t *testing.T) {
	st := chatStore(-5)
	a, b := newNode(t, st, fast()), newNode(t, st, fast())
	a.owners.set(-5, true)
	a.o.Take(func(int64) bool { return true })
	a.api.hold, a.api.holding = make(chan struct{}), true
	var ms []*Message
	for i := range 4 {
		ms = append(ms, msg(fmt.Sprint("g", i), -5, fmt.Sprint("g", i)))
	}
	if err := a.o.Queue(t.Context(), ms, 0); err != nil {
		t.Fatal(err)
	}
	testWait(t, func() bool { // the first call is in flight
		a.api.mu.Lock()
		defer a.api.mu.Unlock()
		return !a.api.holding
	})
	a.owners.set(-5, false)
	yielded := make(chan error, 1)
	go func() { yielded <- a.o.Yield(t.Context(), func(c int64) bool { return c == -5 }) }()
	select {
	case err := <-yielded:
		t.Fatalf("Yield returned %v with a call in flight", err)
	default:
	}
	close(a.api.hold)
	if err := <-yielded; err != nil {
		t.Fatal(err)
	}
	if got := chatIDs(st); got != "[g1 g2 g3]" {
		t.Fatalf("after Yield the store holds %s, want the sent g0 finished", got)
	}
	b.owners.set(-5, true)
	b.o.Take(func(c int64) bool { return c == -5 })
	b.api.await(t, "sent", 3)
	testWait(t, func() bool { return st.queued() == 0 })
	if got := strings.Join(append(a.api.sends(), b.api.sends()...), ","); got != "-5/0/g0,-5/0/g1,-5/0/g2,-5/0/g3" {
		t.Fatalf("sends %s, want each once in order", got)
	}
	if a.o.Stats().Queued != 0 || b.o.Stats().Queued != 0 {
		t.Errorf("depths %d and %d, want 0", a.o.Stats().Queued, b.o.Stats().Queued)
	}
}

// chatIDs lists the ids waiting in the store.
func chatIDs(st *memStore) string {
	ms, _ := st.ListChatMessages(context.Background())
	var ids []string
	for _, m := range ms {
		ids = append(ids, m.MsgID)
	}
	return fmt.Sprint(ids)
}

// TestOutboxSharesTheBotLimit: on a cluster each node sends at its share
// of the bot's global limit, following the number of live nodes.
func TestOutboxSharesTheBotLimit(t *testing.T) {
	st := chatStore(1)
	lim := fast()
	lim.PerSecond = 300
	reg := NewChats(st)
	if err := reg.Load(t.Context()); err != nil {
		t.Fatal(err)
	}
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return slog.New(slog.DiscardHandler) }))
	var nodes atomic.Int64
	nodes.Store(3)
	o := NewOutbox(Config{API: newFakeAPI(), Store: st, Chats: reg, Limits: lim, System: sys, Log: slog.New(slog.DiscardHandler),
		Owners: &fakeOwners{owned: map[int64]bool{1: true}}, Nodes: func() int { return int(nodes.Load()) }})
	t.Cleanup(func() {
		o.Stop()
		sys.Shutdown()
	})
	if err := o.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	send := func(id string) {
		t.Helper()
		if err := o.Queue(t.Context(), []*Message{msg(id, 1, id)}, 0); err != nil {
			t.Fatal(err)
		}
		testWait(t, func() bool { return st.queued() == 0 })
	}
	send("a")
	if got := o.global.Limit(); got != 100 {
		t.Fatalf("limit with 3 nodes %v, want 100", got)
	}
	nodes.Store(1)
	send("b")
	if got := o.global.Limit(); got != 300 {
		t.Fatalf("limit alone %v, want 300", got)
	}
}

// TestOutboxWakesWhileSendingSendNothingTwice: the owner, busy with its own
// chat's messages, is woken again and again by another node's; each read
// back comes after the finishes of what it sent (the deleter's barrier), so
// every message goes once, in the order stored.
func TestOutboxWakesWhileSendingSendNothingTwice(t *testing.T) {
	st := chatStore(-7)
	a, b := newNode(t, st, fast()), newNode(t, st, fast())
	a.owners.set(-7, true)
	a.o.Take(func(int64) bool { return true })
	var want []string
	for i := range 20 {
		id := fmt.Sprintf("m%02d", i)
		want = append(want, "-7/0/"+id)
		n := a
		if i%2 == 1 {
			n = b
		}
		if err := n.o.Queue(t.Context(), []*Message{msg(id, -7, id)}, 0); err != nil {
			t.Fatal(err)
		}
		if n == b {
			a.o.Wake([]int64{-7})
		}
	}
	testWait(t, func() bool { return st.queued() == 0 && len(a.api.sends()) >= 20 })
	a.o.Sweep() // nothing left: no read back sends anything again
	if err := a.o.Queue(t.Context(), []*Message{msg("fence", -7, "fence")}, 0); err != nil {
		t.Fatal(err)
	}
	testWait(t, func() bool { return st.queued() == 0 && len(a.api.sends()) >= 21 })
	if got, want := strings.Join(a.api.sends(), ","), strings.Join(append(want, "-7/0/fence"), ","); got != want {
		t.Fatalf("sends\n%s\nwant\n%s", got, want)
	}
}

// TestOutboxBlockedChatReadBackDropped: messages another node stored for a
// chat the owner knows blocked are finished when read back, never sent.
func TestOutboxBlockedChatReadBackDropped(t *testing.T) {
	st := newMemStore()
	_ = st.PutChat(context.Background(), persistence.Chat{ChatID: -9, AccountID: "a", Blocked: true})
	a, b := newNode(t, st, fast()), newNode(t, st, fast())
	a.owners.set(-9, true)
	a.o.Take(func(int64) bool { return true })
	if err := b.o.Queue(t.Context(), []*Message{msg("x", -9, "x"), msg("y", -9, "y")}, 0); err != nil {
		t.Fatal(err)
	}
	a.o.Wake([]int64{-9})
	testWait(t, func() bool { return st.queued() == 0 })
	if got := a.api.sends(); len(got) != 0 {
		t.Fatalf("sent %v to a blocked chat", got)
	}
	if a.o.Stats().Queued != 0 {
		t.Errorf("depth %d, want 0", a.o.Stats().Queued)
	}
}
