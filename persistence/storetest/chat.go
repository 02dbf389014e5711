package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
)

// chatTests cover the chat-messenger bot's store: chats, topics, the outbox
// and the update offset stored with an update's answers.
var chatTests = []test{
	{"chats: put, replace, list by id", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		mustAccount(t, s, "a1")
		mustAccount(t, s, "a2")
		must(t, "PutChat", s.PutChat(ctx, persistence.Chat{ChatID: 42, AccountID: "a1", Kind: "private", LinkedAt: at(0)}))
		must(t, "PutChat group", s.PutChat(ctx, persistence.Chat{ChatID: -1001, AccountID: "a1", Kind: "supergroup", Forum: true, LinkedAt: at(time.Second)}))
		must(t, "PutChat replace", s.PutChat(ctx, persistence.Chat{ChatID: 42, AccountID: "a2", Kind: "private", Blocked: true, LinkedAt: at(time.Minute)}))
		cs, err := s.ListChats(ctx)
		must(t, "ListChats", err)
		if got := fmt.Sprint(cs); len(cs) != 2 || cs[0].ChatID != -1001 || !cs[0].Forum || cs[1].AccountID != "a2" || !cs[1].Blocked {
			t.Fatalf("chats = %s", got)
		}
		checkTime(t, "LinkedAt", cs[1].LinkedAt, at(time.Minute))
	}},
	{"chat topics: put, replace, delete", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		must(t, "PutChatTopic", s.PutChatTopic(ctx, persistence.ChatTopic{ChatID: -5, Topic: "whale", ThreadID: 7}))
		must(t, "PutChatTopic 2", s.PutChatTopic(ctx, persistence.ChatTopic{ChatID: -5, Topic: "contracts", ThreadID: 9}))
		must(t, "PutChatTopic replace", s.PutChatTopic(ctx, persistence.ChatTopic{ChatID: -5, Topic: "whale", ThreadID: 11}))
		must(t, "DeleteChatTopic", s.DeleteChatTopic(ctx, -5, "contracts"))
		must(t, "DeleteChatTopic none", s.DeleteChatTopic(ctx, -5, "nothing"))
		ts, err := s.ListChatTopics(ctx)
		must(t, "ListChatTopics", err)
		if len(ts) != 1 || ts[0] != (persistence.ChatTopic{ChatID: -5, Topic: "whale", ThreadID: 11}) {
			t.Fatalf("topics = %v", ts)
		}
	}},
	{"chat outbox: queue once, order, finish; the offset goes with the answers", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		off, err := s.BotOffset(ctx)
		must(t, "BotOffset", err)
		if off != 0 {
			t.Fatalf("fresh offset = %d, want 0", off)
		}
		queue := func(what string, offset int64, ms ...persistence.ChatMessage) string {
			stored, err := s.QueueChatMessages(ctx, ms, offset)
			must(t, what, err)
			return fmt.Sprint(stored)
		}
		if got := queue("Queue", 0, chatMsg("b", 1), chatMsg("a", 2)); got != "[true true]" {
			t.Fatalf("Queue stored %s", got)
		}
		if got := queue("Queue with offset", 101, chatMsg("a", 2), chatMsg("c", 1), chatMsg("c", 1)); got != "[false true false]" {
			t.Fatalf("Queue with offset stored %s, want a queued already, c once", got)
		}
		queue("offset only", 102)
		queue("an offset behind", 90) // a poller that lost the lead stores late: the offset stays
		if got := chatOutbox(t, s); got != `[b/1/{"t":"b"} a/2/{"t":"a"} c/1/{"t":"c"}]` {
			t.Fatalf("outbox = %v", got)
		}
		ms, err := s.ListChatMessages(ctx)
		must(t, "ListChatMessages", err)
		checkTime(t, "CreatedAt", ms[0].CreatedAt, at(0))
		if off, err = s.BotOffset(ctx); err != nil || off != 102 {
			t.Fatalf("offset = %d, %v; want 102", off, err)
		}
		must(t, "Finish", s.FinishChatMessages(ctx, []string{"a", "b", "a", "zz"}, at(time.Minute)))
		if got := chatOutbox(t, s); got != `[c/1/{"t":"c"}]` {
			t.Fatalf("after finish: %v", got)
		}
	}},
	{"chat outbox: a finished message is not queued again until pruned", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		_, err := s.QueueChatMessages(ctx, []persistence.ChatMessage{chatMsg("sent", 1), chatMsg("old", 1), chatMsg("waits", 1)}, 0)
		must(t, "Queue", err)
		must(t, "Finish sent", s.FinishChatMessages(ctx, []string{"sent"}, at(time.Hour)))
		must(t, "Finish old", s.FinishChatMessages(ctx, []string{"old"}, at(time.Minute)))
		// What a replay queues: the sent and the waiting message again,
		// and one that never got queued.
		stored, err := s.QueueChatMessages(ctx, []persistence.ChatMessage{chatMsg("sent", 1), chatMsg("waits", 1), chatMsg("lost", 1)}, 0)
		must(t, "Queue again", err)
		if fmt.Sprint(stored) != "[false false true]" {
			t.Fatalf("queue again stored %v, want only the message never queued", stored)
		}
		if got := chatOutbox(t, s); got != `[waits/1/{"t":"waits"} lost/1/{"t":"lost"}]` {
			t.Fatalf("outbox = %v", got)
		}
		must(t, "Finish again", s.FinishChatMessages(ctx, []string{"sent"}, at(2*time.Hour))) // finished already: kept as it was
		must(t, "Prune", s.PruneChatMessages(ctx, at(time.Hour)))
		stored, err = s.QueueChatMessages(ctx, []persistence.ChatMessage{chatMsg("old", 1), chatMsg("sent", 1)}, 0)
		must(t, "Queue after prune", err)
		if fmt.Sprint(stored) != "[true false]" {
			t.Fatalf("after the prune stored %v, want the one finished before the bound queued again, the other not", stored)
		}
		must(t, "Prune all", s.PruneChatMessages(ctx, at(3*time.Hour)))
		if got := chatOutbox(t, s); got != `[waits/1/{"t":"waits"} lost/1/{"t":"lost"} old/1/{"t":"old"}]` {
			t.Fatalf("a prune took waiting messages: %v", got)
		}
	}},
	{"chat outbox: one chat's waiting messages, oldest first", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		_, err := s.QueueChatMessages(ctx, []persistence.ChatMessage{chatMsg("g1", -100), chatMsg("p1", 7),
			chatMsg("g2", -100), chatMsg("g3", -100), chatMsg("p2", 7)}, 0)
		must(t, "Queue", err)
		must(t, "Finish", s.FinishChatMessages(ctx, []string{"g2"}, at(time.Minute)))
		of := func(chat int64) string {
			ms, err := s.ListChatMessagesOf(ctx, chat)
			must(t, "ListChatMessagesOf", err)
			var got []string
			for _, x := range ms {
				got = append(got, fmt.Sprintf("%s/%d/%s", x.MsgID, x.ChatID, x.Body))
			}
			return fmt.Sprint(got)
		}
		if got := of(-100); got != `[g1/-100/{"t":"g1"} g3/-100/{"t":"g3"}]` {
			t.Fatalf("group's queue = %s, want g1 and g3 (g2 finished)", got)
		}
		if got := of(7); got != `[p1/7/{"t":"p1"} p2/7/{"t":"p2"}]` {
			t.Fatalf("private chat's queue = %s", got)
		}
		if got := of(8); got != "[]" {
			t.Fatalf("a chat with nothing queued = %s", got)
		}
		must(t, "Finish p", s.FinishChatMessages(ctx, []string{"p1", "p2"}, at(time.Minute)))
		waiting, err := s.ChatsWaiting(ctx)
		must(t, "ChatsWaiting", err)
		if fmt.Sprint(waiting) != "[-100]" {
			t.Fatalf("chats waiting = %v, want only the group (the private chat's are finished)", waiting)
		}
	}},
	{"chat outbox: many messages queued and finished at once", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		var ms []persistence.ChatMessage
		var ids []string
		for i := range 300 {
			id := fmt.Sprintf("m%03d", i)
			ms, ids = append(ms, chatMsg(id, int64(i%7))), append(ids, id)
		}
		stored, err := s.QueueChatMessages(ctx, ms, 0)
		must(t, "Queue", err)
		for i, ok := range stored {
			if !ok {
				t.Fatalf("message %d not stored", i)
			}
		}
		must(t, "Finish", s.FinishChatMessages(ctx, ids[:299], at(0)))
		if got := chatOutbox(t, s); got != `[m299/5/{"t":"m299"}]` {
			t.Fatalf("outbox = %v", got)
		}
		stored, err = s.QueueChatMessages(ctx, ms, 0)
		must(t, "Queue again", err)
		for i, ok := range stored {
			if ok {
				t.Fatalf("message %d stored twice", i)
			}
		}
	}},
}

func chatMsg(id string, chat int64) persistence.ChatMessage {
	return persistence.ChatMessage{MsgID: id, ChatID: chat, Body: []byte(`{"t":"` + id + `"}`), CreatedAt: at(0)}
}

// chatOutbox lists the waiting messages as id/chat/body.
func chatOutbox(t *testing.T, s persistence.Store) string {
	t.Helper()
	ms, err := s.ListChatMessages(t.Context())
	must(t, "ListChatMessages", err)
	var got []string
	for _, x := range ms {
		got = append(got, fmt.Sprintf("%s/%d/%s", x.MsgID, x.ChatID, x.Body))
	}
	return fmt.Sprint(got)
}
