package chat

import (
	"context"
	"errors"
	"strings"

	"github.com/alertd/alertd/persistence"
	"github.com/asynkron/protoactor-go/actor"
	"golang.org/x/time/rate"
)

// job is one call for a worker.
type job struct {
	m   *Message
	pid *actor.PID
}

// work makes one message's call on a worker of the outbox's pool
// (kit.Workers, whose queue holds at most one job per chat: a chat actor has
// one call in flight) and tells the chat's actor.
func (o *Outbox) work(j job) {
	err := o.call(j.m)
	if o.ctx.Err() != nil {
		return // the outbox is stopping: the message stays stored
	}
	o.system.Root.Send(j.pid, &result{m: j.m, err: err})
}

// call makes one message's call: the global token first, then the topic
// (created the first time, and again when it was deleted), then the send.
func (o *Outbox) call(m *Message) error {
	if o.nodes != nil {
		o.shareLimit(o.nodes())
	}
	if err := o.global.Wait(o.ctx); err != nil {
		return errAborted
	}
	ctx, cancel := context.WithTimeout(o.ctx, o.lim.CallTimeout)
	defer cancel()
	thread := m.Thread
	if thread == 0 && m.Topic != "" && m.Edit == 0 && m.Callback == "" {
		if c, ok := o.chats.Get(m.Chat); ok && c.Forum {
			if thread = o.topic(m.Chat, m.Topic); thread == 0 {
				title := m.TopicTitle
				if title == "" {
					title = m.Topic
				}
				t, err := o.api.CreateTopic(ctx, m.Chat, title)
				if err != nil {
					return err
				}
				sctx, scancel := storeCtx()
				err = o.store.PutChatTopic(sctx, persistence.ChatTopic{ChatID: m.Chat, Topic: m.Topic, ThreadID: t})
				scancel()
				if err != nil {
					return err
				}
				o.setTopic(m.Chat, m.Topic, t)
				thread = t
			}
		}
	}
	err := o.api.Send(ctx, m, thread)
	if thread != 0 && topicGone(err) {
		sctx, scancel := storeCtx()
		_ = o.store.DeleteChatTopic(sctx, m.Chat, m.Topic)
		scancel()
		o.setTopic(m.Chat, m.Topic, 0)
		return errors.Join(errTopicGone, err)
	}
	return err
}

// topicGone reports whether the Bot API said the thread no longer exists.
func topicGone(err error) bool {
	var e *APIError
	if !errors.As(err, &e) || e.Code != 400 {
		return false
	}
	d := strings.ToLower(e.Description)
	return strings.Contains(d, "thread not found") || strings.Contains(d, "topic_deleted") || strings.Contains(d, "topic deleted")
}

// shareLimit cuts the global limit to this node's share when the number of
// nodes sending for the bot changed.
func (o *Outbox) shareLimit(nodes int) {
	n := int64(max(nodes, 1))
	if o.share.Swap(n) != n {
		o.global.SetLimit(rate.Limit(o.lim.PerSecond / float64(n)))
	}
}
