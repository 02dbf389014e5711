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
	{"chat outbox: queue once, order, delete; the offset goes with the answers", func(t *testing.T, s persistence.Store) {
		ctx := t.Context()
		off, err := s.BotOffset(ctx)
		must(t, "BotOffset", err)
		if off != 0 {
			t.Fatalf("fresh offset = %d, want 0", off)
		}
		m := func(id string, chat int64) persistence.ChatMessage {
			return persistence.ChatMessage{MsgID: id, ChatID: chat, Body: []byte(`{"t":"` + id + `"}`), CreatedAt: at(0)}
		}
		must(t, "Queue", s.QueueChatMessages(ctx, []persistence.ChatMessage{m("b", 1), m("a", 2)}, 0))
		must(t, "Queue with offset", s.QueueChatMessages(ctx, []persistence.ChatMessage{m("a", 2), m("c", 1)}, 101))
		must(t, "offset only", s.QueueChatMessages(ctx, nil, 102))
		ms, err := s.ListChatMessages(ctx)
		must(t, "ListChatMessages", err)
		var got []string
		for _, x := range ms {
			got = append(got, fmt.Sprintf("%s/%d/%s", x.MsgID, x.ChatID, x.Body))
		}
		if want := `[b/1/{"t":"b"} a/2/{"t":"a"} c/1/{"t":"c"}]`; fmt.Sprint(got) != want {
			t.Fatalf("outbox = %v, want %s", got, want)
		}
		checkTime(t, "CreatedAt", ms[0].CreatedAt, at(0))
		if off, err = s.BotOffset(ctx); err != nil || off != 102 {
			t.Fatalf("offset = %d, %v; want 102", off, err)
		}
		must(t, "Delete", s.DeleteChatMessages(ctx, []string{"a", "b", "a", "zz"}))
		ms, err = s.ListChatMessages(ctx)
		must(t, "ListChatMessages", err)
		if len(ms) != 1 || ms[0].MsgID != "c" {
			t.Fatalf("after delete: %v", ms)
		}
	}},
}
