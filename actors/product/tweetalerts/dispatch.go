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

// Dispatcher sends each new post to the matching webhooks of Tweet Alerts
// (the WebSocket sessions hear the handle's topic on the delivery hub). The
// Matcher actor runs it, off the handle actors; it never blocks: the
// webhook engine only appends to its write-ahead buffer. Settings, keywords
// and mutes are not consulted: they apply to chat alerts only (spec 1).
type Dispatcher struct {
	Registry *Registry
	Webhooks Publisher
	// Limit is an account's current tracked-account limit (0 when its
	// Tweet Alerts subscription is gone or expired).
	Limit func(account string) int
	// WebhookLimit is an account's current webhook limit (nil: none): its
	// webhooks past it, the newest, do not fire (a downgrade).
	WebhookLimit func(account string) int
	Now          func() time.Time
}

// Dispatch queues a new post, first detected at firstSeen (epoch ms), to
// the webhooks that track its author.
func (d *Dispatcher) Dispatch(post *protocol.Tweet, firstSeen int64) {
	if post == nil || d.Webhooks == nil || d.Registry == nil {
		return
	}
	ids := d.Registry.MatchWebhooks(protocol.NormalizeHandle(post.Author.Handle), post.Text, d.Limit, d.WebhookLimit)
	if len(ids) == 0 {
		return
	}
	a := protocol.NewTweetAlert(post, firstSeen)
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
