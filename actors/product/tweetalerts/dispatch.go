package tweetalerts

import (
	"strconv"
	"time"

	"github.com/alertd/alertd/actors/webhook"
	"github.com/alertd/alertd/protocol"
)

// Publisher queues webhook deliveries (the webhook engine).
type Publisher interface {
	Publish(out []webhook.Outgoing)
}

// Dispatcher is the post tap of Tweet Alerts: each new post goes to the
// matching webhooks (the WebSocket sessions hear the handle's topic on the
// delivery hub). It runs on the handle actors' goroutines, concurrently
// across handles, and never blocks: the engine only appends to its
// write-ahead buffer. Settings, keywords and mutes are not consulted: they
// apply to chat alerts only (spec 1).
type Dispatcher struct {
	Registry *Registry
	Webhooks Publisher
	// Limit is an account's current tracked-account limit (0 when its
	// Tweet Alerts subscription is gone or expired).
	Limit func(account string) int
	Now   func() time.Time
}

// OnPost is a handle.PostTap.
func (d *Dispatcher) OnPost(o *protocol.Observation, firstSeen int64, isNew bool) {
	if !isNew || o.Post == nil {
		return
	}
	if d.Webhooks == nil || d.Registry == nil {
		return
	}
	ids := d.Registry.MatchWebhooks(protocol.NormalizeHandle(o.Post.Author.Handle), o.Post.Text, d.Limit)
	if len(ids) == 0 {
		return
	}
	a := protocol.NewTweetAlert(o.Post, firstSeen)
	body := WebhookBody(&a, d.Now().UnixMilli()) // one body for every webhook; each signs it with its secret
	out := make([]webhook.Outgoing, len(ids))
	for i, id := range ids {
		out[i] = webhook.Outgoing{EndpointID: id, DeliveryID: DeliveryID(id, a.TweetID), Body: body}
	}
	d.Webhooks.Publish(out)
}

// DeliveryID is the stable id of the delivery of post tweetID to webhook
// id: the same on every attempt and after a restart, and a post seen twice
// as new is not queued twice while the first is still queued.
func DeliveryID(id int64, tweetID string) string {
	return "tw-" + strconv.FormatInt(id, 10) + "-" + tweetID
}
