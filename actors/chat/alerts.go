package chat

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/alertd/alertd/actors/handle"
	"github.com/alertd/alertd/actors/kit"
	"github.com/alertd/alertd/actors/product/tweetalerts"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
)

// TweetAlerts is the chat channel of Tweet Alerts: the singleton actor
// "chat-tweetalerts" hears each new post (a handle.Subscriber, like the
// webhook matcher), applies every recipient's settings, keywords, mute and
// filters (tweetalerts.ChatRoute), formats the post once and queues one
// message per linked chat in the outbox.
type TweetAlerts struct {
	ref    *kit.Ref
	outbox *Outbox
}

// TweetAlertsDeps are what the Tweet Alerts chat channel reads.
type TweetAlertsDeps struct {
	Registry *tweetalerts.Registry
	// Limit is an account's tracked-account limit (0: no live subscription).
	Limit  func(account string) int
	Outbox *Outbox
	Log    *slog.Logger
}

// StartTweetAlerts spawns the channel's actor.
func StartTweetAlerts(ctx context.Context, k *kit.Kit, d TweetAlertsDeps) (*TweetAlerts, error) {
	if d.Log == nil {
		d.Log = slog.Default()
	}
	ref, err := k.Spawn(ctx, "chat-tweetalerts", func() actor.Actor { return &tweetAlertsActor{d: d} })
	if err != nil {
		return nil, err
	}
	return &TweetAlerts{ref: ref, outbox: d.Outbox}, nil
}

// Hear takes the handle actors' post-seen changes: only new posts alert.
func (t *TweetAlerts) Hear(change any) {
	if t == nil {
		return // no bot
	}
	// A replayed New alerts again: the crash may have come before its
	// messages were queued, and the outbox skips those it has queued or sent
	// (message ids are the chat and the post). Past FinishedKeep it no
	// longer knows, so an older replay is skipped instead.
	if c, ok := change.(*handle.PostSeen); ok && c.New && c.Obs != nil && c.Obs.Post != nil &&
		!(c.Replayed && t.outbox.now().Sub(time.UnixMilli(c.Obs.DetectedAt)) > FinishedKeep-pruneEvery) {
		t.ref.Tell(c)
	}
}

// Stop lets the actor finish what it was told, then stops it.
func (t *TweetAlerts) Stop() {
	if t != nil {
		_ = t.ref.Stop()
	}
}

type tweetAlertsActor struct {
	d TweetAlertsDeps
}

func (a *tweetAlertsActor) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *handle.PostSeen:
		a.alert(m.Obs.Post, m.FirstSeen)
	case *actor.Started, *actor.Stopping, *actor.Stopped, *actor.Restarting:
	default:
		a.d.Log.Warn("chat tweet alerts: unexpected message", "type", fmt.Sprintf("%T", m))
	}
}

// alert queues the chat messages of one new post.
func (a *tweetAlertsActor) alert(post *protocol.Tweet, detectedAt int64) {
	h := protocol.NormalizeHandle(post.Author.Handle)
	rcs := a.d.Registry.ChatRecipients(h, a.d.Limit)
	if len(rcs) == 0 {
		return
	}
	var ms []*Message
	var text string
	var photos []string
	url := protocol.PostURL(h, post.ID)
	for i := range rcs {
		send, topic := tweetalerts.ChatRoute(&rcs[i], post)
		if !send {
			continue
		}
		chats := a.d.Outbox.chats.OfAccount(rcs[i].Account)
		if len(chats) == 0 {
			continue
		}
		if text == "" {
			text, photos = TweetAlert(post)
		}
		title := "@" + h
		if topic == tweetalerts.ContractsTopic {
			title = "Contracts"
		}
		for _, ch := range chats {
			m := &Message{ID: "xg-" + strconv.FormatInt(ch.ChatID, 10) + "-" + post.ID, Chat: ch.ChatID, Text: text,
				Photos: photos, Alert: true, URL: url, DetectedAt: detectedAt}
			if ch.Forum && topic != "" {
				m.Topic, m.TopicTitle = topic, title
			}
			ms = append(ms, m)
		}
	}
	if len(ms) == 0 {
		return
	}
	ctx, cancel := storeCtx()
	defer cancel()
	if err := a.d.Outbox.Queue(ctx, ms, 0); err != nil {
		a.d.Log.Error("chat tweet alerts: queue", "post", post.ID, "err", err)
	}
}
