package chat

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/asynkron/protoactor-go/actor"
)

// memStore is an in-memory Store.
type memStore struct {
	mu       sync.Mutex
	chats    map[int64]persistence.Chat
	topics   map[[2]string]persistence.ChatTopic
	out      []persistence.ChatMessage
	ever     []persistence.ChatMessage // every row queued, sent or not
	finished map[string]time.Time
	offset   int64
}

func newMemStore() *memStore {
	return &memStore{chats: map[int64]persistence.Chat{}, topics: map[[2]string]persistence.ChatTopic{}, finished: map[string]time.Time{}}
}

func (s *memStore) PutChat(_ context.Context, c persistence.Chat) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chats[c.ChatID] = c
	return nil
}

func (s *memStore) ListChats(context.Context) ([]persistence.Chat, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []persistence.Chat
	for _, c := range s.chats {
		out = append(out, c)
	}
	return out, nil
}

func (s *memStore) QueueChatMessages(_ context.Context, ms []persistence.ChatMessage, offset int64) ([]bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	stored := make([]bool, len(ms))
	for i, m := range ms {
		_, finished := s.finished[m.MsgID]
		if !finished && !slices.ContainsFunc(s.out, func(x persistence.ChatMessage) bool { return x.MsgID == m.MsgID }) {
			s.out = append(s.out, m)
			stored[i] = true
		}
		s.ever = append(s.ever, m)
	}
	if offset > 0 {
		s.offset = offset
	}
	return stored, nil
}

func (s *memStore) FinishChatMessages(_ context.Context, ids []string, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.out = slices.DeleteFunc(s.out, func(x persistence.ChatMessage) bool {
		if slices.Contains(ids, x.MsgID) {
			s.finished[x.MsgID] = at
			return true
		}
		return false
	})
	return nil
}

func (s *memStore) PruneChatMessages(_ context.Context, before time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, at := range s.finished {
		if at.Before(before) {
			delete(s.finished, id)
		}
	}
	return nil
}

func (s *memStore) ListChatMessages(context.Context) ([]persistence.ChatMessage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.out), nil
}

func (s *memStore) ListChatMessagesOf(_ context.Context, chat int64) ([]persistence.ChatMessage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []persistence.ChatMessage
	for _, m := range s.out {
		if m.ChatID == chat {
			out = append(out, m)
		}
	}
	return out, nil
}

func (s *memStore) ChatsWaiting(context.Context) ([]int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []int64
	for _, m := range s.out {
		if !slices.Contains(out, m.ChatID) {
			out = append(out, m.ChatID)
		}
	}
	slices.Sort(out)
	return out, nil
}

func (s *memStore) PutChatTopic(_ context.Context, t persistence.ChatTopic) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.topics[[2]string{fmt.Sprint(t.ChatID), t.Topic}] = t
	return nil
}

func (s *memStore) DeleteChatTopic(_ context.Context, chat int64, topic string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.topics, [2]string{fmt.Sprint(chat), topic})
	return nil
}

func (s *memStore) ListChatTopics(context.Context) ([]persistence.ChatTopic, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []persistence.ChatTopic
	for _, t := range s.topics {
		out = append(out, t)
	}
	return out, nil
}

func (s *memStore) queued() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.out)
}

// fakeAPI records sends; script answers the next sends with errors; hold
// makes Send wait until released.
type fakeAPI struct {
	mu      sync.Mutex
	sent    []string // "chat/thread/text"
	script  []error
	topics  int64
	gone    map[int64]bool // deleted threads
	events  chan string
	hold    chan struct{}
	holding bool
}

func newFakeAPI() *fakeAPI {
	return &fakeAPI{events: make(chan string, 1000), gone: map[int64]bool{}}
}

func (f *fakeAPI) Send(ctx context.Context, m *Message, thread int64) error {
	f.mu.Lock()
	hold := f.hold
	if f.holding {
		f.holding = false
	} else {
		hold = nil
	}
	f.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if thread != 0 && f.gone[thread] {
		f.events <- "gone"
		return &APIError{Code: 400, Description: "Bad Request: message thread not found"}
	}
	if len(f.script) > 0 {
		err := f.script[0]
		f.script = f.script[1:]
		f.events <- "error"
		return err
	}
	s := fmt.Sprintf("%d/%d/%s", m.Chat, thread, m.Text)
	f.sent = append(f.sent, s)
	f.events <- "sent"
	return nil
}

func (f *fakeAPI) CreateTopic(_ context.Context, _ int64, title string) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.topics++
	f.events <- "topic " + title
	return 100 + f.topics, nil
}

func (f *fakeAPI) sends() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.sent)
}

// await waits for n events of kind.
func (f *fakeAPI) await(t *testing.T, kind string, n int) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for n > 0 {
		select {
		case e := <-f.events:
			if e == kind || strings.HasPrefix(e, kind+" ") {
				n--
			}
		case <-timeout:
			t.Fatalf("%d more %q events did not come", n, kind)
		}
	}
}

type rig struct {
	o     *Outbox
	api   *fakeAPI
	store *memStore
	chats *Chats
}

func newRig(t *testing.T, lim Limits, chats ...persistence.Chat) *rig {
	t.Helper()
	st := newMemStore()
	for _, c := range chats {
		_ = st.PutChat(context.Background(), c)
	}
	reg := NewChats(st)
	if err := reg.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return slog.New(slog.DiscardHandler) }))
	api := newFakeAPI()
	o := NewOutbox(Config{API: api, Store: st, Chats: reg, Limits: lim, System: sys, Log: slog.New(slog.DiscardHandler)})
	t.Cleanup(func() {
		o.Stop()
		sys.Shutdown()
	})
	return &rig{o: o, api: api, store: st, chats: reg}
}

func fast() Limits {
	return Limits{PerSecond: 10000, PrivateEvery: time.Millisecond, GroupEvery: time.Millisecond, DigestAt: 50,
		Workers: 4, Attempts: 3, Backoff: time.Millisecond}
}

func msg(id string, chat int64, text string) *Message {
	return &Message{ID: id, Chat: chat, Text: text, Alert: true, URL: "https://x.com/h/status/" + id}
}

func TestOutboxOrderAndStore(t *testing.T) {
	r := newRig(t, fast(), persistence.Chat{ChatID: 1, AccountID: "a"})
	if err := r.o.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	var ms []*Message
	for i := range 5 {
		ms = append(ms, msg(fmt.Sprint(i), 1, fmt.Sprint("m", i)))
	}
	if err := r.o.Queue(t.Context(), ms, 7); err != nil {
		t.Fatal(err)
	}
	r.api.await(t, "sent", 5)
	if got := strings.Join(r.api.sends(), ","); got != "1/0/m0,1/0/m1,1/0/m2,1/0/m3,1/0/m4" {
		t.Fatalf("sends %s", got)
	}
	if r.store.offset != 7 {
		t.Errorf("offset %d, want 7", r.store.offset)
	}
	testWait(t, func() bool { return r.store.queued() == 0 && r.o.Stats().Queued == 0 })
	if st := r.o.Stats(); st.Sent != 5 {
		t.Errorf("stats %+v", st)
	}
}

func TestOutboxResumesStored(t *testing.T) {
	r := newRig(t, fast(), persistence.Chat{ChatID: 1, AccountID: "a"})
	_, _ = r.store.QueueChatMessages(t.Context(), []persistence.ChatMessage{{MsgID: "x", ChatID: 1, Body: msg("x", 1, "left over").Encode()}}, 0)
	if err := r.o.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	r.api.await(t, "sent", 1)
	if got := r.api.sends(); len(got) != 1 || got[0] != "1/0/left over" {
		t.Fatalf("sends %v", got)
	}
}

func TestOutbox429SentOnce(t *testing.T) {
	r := newRig(t, fast(), persistence.Chat{ChatID: 1, AccountID: "a"})
	r.api.script = []error{&APIError{Code: 429, Description: "Too Many Requests", RetryAfter: 30 * time.Millisecond}}
	_ = r.o.Start(t.Context())
	start := time.Now()
	_ = r.o.Queue(t.Context(), []*Message{msg("a", 1, "hello")}, 0)
	r.api.await(t, "error", 1)
	r.api.await(t, "sent", 1)
	if waited := time.Since(start); waited < 30*time.Millisecond {
		t.Errorf("sent again after %v, before retry_after", waited)
	}
	if got := r.api.sends(); len(got) != 1 {
		t.Fatalf("sends %v, want one", got)
	}
	testWait(t, func() bool { return r.o.Stats().Sent == 1 })
	if st := r.o.Stats(); st.RateLimited != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestOutbox403BlocksChat(t *testing.T) {
	r := newRig(t, fast(), persistence.Chat{ChatID: 1, AccountID: "a"}, persistence.Chat{ChatID: 2, AccountID: "a"})
	r.api.mu.Lock()
	r.api.script = []error{&APIError{Code: 403, Description: "Forbidden: bot was blocked by the user"}}
	r.api.mu.Unlock()
	_ = r.o.Start(t.Context())
	_ = r.o.Queue(t.Context(), []*Message{msg("a", 1, "one"), msg("b", 1, "two")}, 0)
	r.api.await(t, "error", 1)
	testWait(t, func() bool { return r.o.Stats().Blocked == 1 && r.o.Stats().Queued == 0 })
	if !r.chats.Blocked(1) || r.store.chats[1].Blocked != true {
		t.Fatal("chat 1 not marked blocked")
	}
	if got := r.chats.OfAccount("a"); len(got) != 1 || got[0].ChatID != 2 {
		t.Errorf("account's chats after the block: %v", got)
	}
	if r.store.queued() != 0 {
		t.Errorf("a blocked chat's messages stay stored")
	}
	// Later messages to the blocked chat are dropped, not sent.
	_ = r.o.Queue(t.Context(), []*Message{msg("c", 1, "three"), msg("d", 2, "other chat")}, 0)
	r.api.await(t, "sent", 1)
	testWait(t, func() bool { return r.o.Stats().Queued == 0 })
	if got := r.api.sends(); len(got) != 1 || got[0] != "2/0/other chat" {
		t.Errorf("sends %v", got)
	}
}

func TestOutboxDigest(t *testing.T) {
	lim := fast()
	lim.DigestAt = 5
	r := newRig(t, lim, persistence.Chat{ChatID: 1, AccountID: "a"})
	r.api.hold, r.api.holding = make(chan struct{}), true
	_ = r.o.Start(t.Context())
	var ms []*Message
	for i := range 12 {
		ms = append(ms, msg(fmt.Sprint(i), 1, fmt.Sprint("m", i)))
	}
	_ = r.o.Queue(t.Context(), ms[:1], 0)
	_ = r.o.Queue(t.Context(), append(ms[1:], &Message{ID: "cmd", Chat: 1, Text: "an answer"}), 0)
	close(r.api.hold) // the first send returns; 11 alerts wait
	r.api.await(t, "sent", 3)
	got := r.api.sends()
	if len(got) != 3 || got[0] != "1/0/m0" || !strings.Contains(got[1], "11 alerts while this chat was behind") || got[2] != "1/0/an answer" {
		t.Fatalf("sends %q", got)
	}
	for i := 1; i < 12; i++ {
		if !strings.Contains(got[1], "status/"+fmt.Sprint(i)+`"`) {
			t.Errorf("digest lacks alert %d", i)
		}
	}
	testWait(t, func() bool { return r.store.queued() == 0 && r.o.Stats().Queued == 0 })
	if st := r.o.Stats(); st.Digests != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestOutboxTopics(t *testing.T) {
	r := newRig(t, fast(), persistence.Chat{ChatID: -5, AccountID: "a", Kind: "supergroup", Forum: true},
		persistence.Chat{ChatID: 9, AccountID: "a", Kind: "private"})
	_ = r.o.Start(t.Context())
	m := func(id string, chat int64, topic string) *Message {
		x := msg(id, chat, id)
		x.Topic, x.TopicTitle = topic, "@"+topic
		return x
	}
	_ = r.o.Queue(t.Context(), []*Message{m("1", -5, "whale"), m("2", -5, "whale"), m("3", -5, "degen"), m("4", 9, "whale")}, 0)
	r.api.await(t, "sent", 4)
	got := r.api.sends()
	if fmt.Sprint(got) != "[-5/101/1 -5/101/2 -5/102/3 9/0/4]" && fmt.Sprint(got) != "[9/0/4 -5/101/1 -5/101/2 -5/102/3]" &&
		fmt.Sprint(got) != "[-5/101/1 9/0/4 -5/101/2 -5/102/3]" && fmt.Sprint(got) != "[-5/101/1 -5/101/2 9/0/4 -5/102/3]" {
		t.Fatalf("sends %v", got)
	}
	if len(r.store.topics) != 2 {
		t.Errorf("stored topics %v", r.store.topics)
	}
	// A deleted topic is created again, and the message sent there.
	r.api.mu.Lock()
	r.api.gone[101] = true
	r.api.mu.Unlock()
	_ = r.o.Queue(t.Context(), []*Message{m("5", -5, "whale")}, 0)
	r.api.await(t, "sent", 1)
	if got := r.api.sends(); got[len(got)-1] != "-5/103/5" {
		t.Fatalf("after the delete: %v", got)
	}
}

// testWait waits for cond (what happens on the outbox's goroutines).
func testWait(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestOutboxMigratesToSupergroup(t *testing.T) {
	r := newRig(t, fast(), persistence.Chat{ChatID: -1, AccountID: "a", Kind: "group"})
	r.api.script = []error{&APIError{Code: 400, Description: "Bad Request: group chat was upgraded to a supergroup chat", MigrateTo: -1007}}
	_ = r.o.Start(t.Context())
	_ = r.o.Queue(t.Context(), []*Message{msg("a", -1, "one"), msg("b", -1, "two")}, 0)
	r.api.await(t, "sent", 2)
	if got := fmt.Sprint(r.api.sends()); got != "[-1007/0/one -1007/0/two]" {
		t.Fatalf("sends %s", got)
	}
	if got := r.chats.OfAccount("a"); len(got) != 1 || got[0].ChatID != -1007 || got[0].Kind != "supergroup" {
		t.Errorf("the account's chats after the migration: %v", got)
	}
	testWait(t, func() bool { return r.store.queued() == 0 && r.o.Stats().Queued == 0 })
}

// TestChatActorRestartsFromTheStore: a chat actor that panics restarts as a
// new instance that reloads the chat's queue from the store: nothing queued
// is lost, nothing sent is sent again.
func TestChatActorRestartsFromTheStore(t *testing.T) {
	st := newMemStore()
	_ = st.PutChat(context.Background(), persistence.Chat{ChatID: 1, AccountID: "a"})
	reg := NewChats(st)
	_ = reg.Load(context.Background())
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return slog.New(slog.DiscardHandler) }))
	api := newFakeAPI()
	api.hold, api.holding = make(chan struct{}), true
	o := NewOutbox(Config{API: api, Store: st, Chats: reg, Limits: fast(), System: sys, Log: slog.New(slog.DiscardHandler),
		Supervisor: actor.NewOneForOneStrategy(100, time.Second, func(any) actor.Directive { return actor.RestartDirective })})
	t.Cleanup(func() {
		o.Stop()
		sys.Shutdown()
	})
	_ = o.Start(t.Context())
	_ = o.Queue(t.Context(), []*Message{msg("a", 1, "first")}, 0) // in flight, held
	sys.Root.Send(o.pid(1), &enqueue{ms: []*Message{nil}})        // a nil message panics the actor when it is next up
	_ = o.Queue(t.Context(), []*Message{msg("b", 1, "second")}, 0)
	close(api.hold)
	api.await(t, "sent", 2)
	if got := fmt.Sprint(api.sends()); got != "[1/0/first 1/0/second]" {
		t.Fatalf("sends %s", got)
	}
	testWait(t, func() bool { return st.queued() == 0 })
}

// TestOutboxSecretNotStored: a secret message (a new API key) is sent but
// never reaches the store; the others of the same batch are stored as usual.
func TestOutboxSecretNotStored(t *testing.T) {
	r := newRig(t, fast(), persistence.Chat{ChatID: 1, AccountID: "a"})
	if err := r.o.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	key := &Message{ID: "k", Chat: 1, Text: "xg_secretkey", Secret: true}
	if err := r.o.Queue(t.Context(), []*Message{msg("a", 1, "before"), key, msg("b", 1, "after")}, 9); err != nil {
		t.Fatal(err)
	}
	r.api.await(t, "sent", 3)
	if got := strings.Join(r.api.sends(), ","); got != "1/0/before,1/0/xg_secretkey,1/0/after" {
		t.Fatalf("sends %s", got)
	}
	r.store.mu.Lock()
	defer r.store.mu.Unlock()
	for _, m := range r.store.ever {
		if m.MsgID == "k" || strings.Contains(string(m.Body), "xg_secretkey") {
			t.Errorf("the secret was stored: %s %s", m.MsgID, m.Body)
		}
	}
	if len(r.store.ever) != 2 || r.store.offset != 9 {
		t.Errorf("stored %d messages (want 2), offset %d (want 9)", len(r.store.ever), r.store.offset)
	}
}

// TestOutboxSendsAMessageOnce is what the ingest log's replay relies on: a
// message queued again is not sent again, whether it still waits (resumed
// at start) or was sent already; a message never queued before is sent.
// The chat sends in order, so the last message's send is the barrier after
// which a second send of an earlier one would have shown.
func TestOutboxSendsAMessageOnce(t *testing.T) {
	r := newRig(t, fast(), persistence.Chat{ChatID: 1, AccountID: "a"})
	_, _ = r.store.QueueChatMessages(t.Context(), []persistence.ChatMessage{{MsgID: "left", ChatID: 1, Body: msg("left", 1, "left over").Encode()}}, 0)
	if err := r.o.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := r.o.Queue(t.Context(), []*Message{msg("left", 1, "left over"), msg("a", 1, "a")}, 0); err != nil {
		t.Fatal(err)
	}
	r.api.await(t, "sent", 2)
	testWait(t, func() bool { return r.store.queued() == 0 }) // both finished in the store
	if err := r.o.Queue(t.Context(), []*Message{msg("left", 1, "left over"), msg("a", 1, "a"), msg("b", 1, "b")}, 0); err != nil {
		t.Fatal(err)
	}
	r.api.await(t, "sent", 1)
	if got := strings.Join(r.api.sends(), ","); got != "1/0/left over,1/0/a,1/0/b" {
		t.Fatalf("sends %s", got)
	}
	testWait(t, func() bool { return r.o.Stats().Queued == 0 })
}
