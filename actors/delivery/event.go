// Package delivery is the delivery layer: the one registry of subscribers
// (Hub: topics keyed by handle, account, wallet or product, to the sessions
// of every socket kind) and the events that travel through it (Event:
// pre-encoded frames plus the plain fields subscribers filter on), with the
// replay buffer of the realtime socket (Recent).
//
// Publishers are actors: a handle actor publishes its handle's events,
// product actors their frames, the list registries the changes of an
// account's list. Each variant of an event is encoded once, by or for its
// publisher, and every subscriber gets the same bytes; subscribers decide
// from the fields beside the bytes, never by parsing them.
//
// Subscribers that share one subscription (the sockets of one B2B account)
// join a Group: the hub holds the group once per topic, the group its
// members.
//
// Shared memory: Hub (mu, then a topic list's mu; no lock held during
// Deliver), Group (mu, before the hub's; members copy-on-write) and Recent
// (mu). An Event is written only on its publisher's
// goroutine and read-only once it is kept in Recent.
package delivery

import (
	"time"

	"github.com/alertd/alertd/protocol"
)

// Kind says what an event carries.
type Kind uint8

const (
	// KindHandle is an event of a handle (handle topics), in the realtime
	// socket's format, with the tweet-only and Tweet Alerts variants of
	// posts.
	KindHandle Kind = iota
	// KindFrame is a product socket frame (account, wallet and product
	// topics): ProductFrame, filtered on Item and Mask.
	KindFrame
	// KindTargetAdded and KindTargetRemoved say that the account's list
	// gained or lost the handle Item (account topics).
	KindTargetAdded
	KindTargetRemoved
)

// Variant selects one encoding of a handle event.
type Variant uint8

const (
	VariantStandard   Variant = 0
	VariantEnterprise Variant = 1 << 0 // ocr_text and extracted_cas on posts
	VariantDelayed    Variant = 1 << 1 // late delivery: delayed and delay_ms
	variantCount              = 4
)

// Event is one event ready for delivery. It is built by the one actor that
// publishes it; once published it is read-only, but for its frames, each
// encoded on first use (FrameFor, TweetOnlyFrame, AlertFrame) during
// Publish, on the publisher's goroutine, where every Deliver runs. An event
// that other goroutines read later (kept in Recent, told to a cluster
// grain) is encoded whole first (Encode).
type Event struct {
	Kind Kind

	// Handle events.
	Meta   protocol.EventMeta
	Header protocol.EventHeader
	// Tweet is set on post events; Data on the others (encoded once).
	Tweet *protocol.Tweet
	Data  []byte
	// UpdateForOCROnly marks a post.update whose only news is recovered OCR
	// text: only enterprise sessions get it (spec 2, delivery rule 5).
	UpdateForOCROnly bool
	// CreatedAt and DetectedAt are epoch ms (posts: post time and first
	// detection; others: both the event time).
	CreatedAt, DetectedAt int64
	// Late marks a post older than the real-time limit when detected: only
	// late_delivery sessions get it, as the delayed variant.
	Late bool
	// IngestedAt stamps when the observation behind the event was ingested
	// (internal/latency.Now; 0 unknown): the start of its delivery latency.
	IngestedAt int64

	// Item is what a product frame is about, for sockets opened for some
	// items only (cw: the handle; et: the post id; "" for every socket),
	// or the handle of a list change.
	Item string
	// Mask is the kind bit of a product frame, for sockets that take some
	// kinds only (PumpFun alert types); 0 when sockets do not filter.
	Mask uint8

	frames    [variantCount][]byte
	tweetOnly []byte
	product   []byte
	alert     []byte
	alertDone bool // alert decided: encoded, or not deliverable
}

// NewFrame is a product socket frame (KindFrame) about item, with kind bit
// mask (see Item and Mask).
func NewFrame(frame []byte, item string, mask uint8) *Event {
	return &Event{Kind: KindFrame, product: frame, Item: item, Mask: mask}
}

// TargetAdded is the list change "handle joined the account's list".
func TargetAdded(handle string) *Event { return &Event{Kind: KindTargetAdded, Item: handle} }

// TargetRemoved is the list change "handle left the account's list".
func TargetRemoved(handle string) *Event { return &Event{Kind: KindTargetRemoved, Item: handle} }

// ProductFrame is the frame of a KindFrame event.
func (e *Event) ProductFrame() []byte { return e.product }

// Frame returns the EVENT frame of variant v of a handle event, encoding it
// on first use: call it on the publisher's goroutine (from Deliver), or
// after Encode.
func (e *Event) Frame(v Variant) []byte {
	if f := e.frames[v]; f != nil || e.Kind != KindHandle {
		return f
	}
	h := e.Header
	if v&VariantDelayed != 0 {
		h.Delayed, h.DelayMs = true, e.DetectedAt-e.CreatedAt
	}
	data := e.Data
	if e.Tweet != nil {
		tv := protocol.TweetStandard
		if v&VariantEnterprise != 0 {
			tv = protocol.TweetEnterprise
		}
		var err error
		if data, err = protocol.AppendTweetData(nil, e.Tweet, tv); err != nil {
			data = nil
		}
	}
	f := protocol.AppendEventFrame(make([]byte, 0, len(data)+160), &h, data)
	e.frames[v] = f
	return f
}

// Encode encodes every realtime and tweet-only variant a handle event can
// be delivered in, for an event that goroutines other than its publisher's
// read (a follow event kept for replays, an event told to a cluster
// grain). Publish does not: each variant is encoded when the first session
// that takes it asks (FrameFor, TweetOnlyFrame), so that a post's first
// delivery waits for one encoding, not three, and a variant no session
// takes costs nothing (bench/results/fanout-latency-2026-11-25.md). Other
// kinds come encoded; the Tweet Alerts variant is encoded on first use
// (AlertFrame).
func (e *Event) Encode() {
	if e.Kind != KindHandle {
		return
	}
	delayed := Variant(0)
	if e.Late {
		delayed = VariantDelayed
	}
	e.Frame(VariantStandard | delayed)
	if e.Tweet != nil {
		e.Frame(VariantEnterprise | delayed)
		e.encodeTweetOnly()
	}
}

// FrameFor returns the frame a realtime session with the given traits gets,
// encoding it on first use (see Frame).
func (e *Event) FrameFor(enterprise bool) []byte {
	v := VariantStandard
	if enterprise && e.Tweet != nil {
		v = VariantEnterprise
	}
	if e.Late {
		v |= VariantDelayed
	}
	return e.Frame(v)
}

// ReplayFrame encodes the late-delivery replay of a post event: core fields
// only, `replayed` true, the live event id (spec 2, delivery rule 2). Replays
// are rare, so the frame is built per call and the event is not changed.
func (e *Event) ReplayFrame(enterprise bool) []byte {
	if e.Tweet == nil {
		return e.FrameFor(false)
	}
	v := protocol.TweetCore
	if enterprise {
		v |= protocol.TweetEnterprise
	}
	data, err := protocol.AppendTweetData(nil, e.Tweet, v)
	if err != nil {
		return nil
	}
	h := e.Header
	h.Replayed = true
	return protocol.AppendEventFrame(make([]byte, 0, len(data)+160), &h, data)
}

// TweetOnlyFrame is the frame of the tweet-only sockets (/v1/dt/ws and
// /social/tweet/websocket) for live post.new events, encoded on first use
// (see Frame); nil for other events.
func (e *Event) TweetOnlyFrame() []byte {
	e.encodeTweetOnly()
	return e.tweetOnly
}

func (e *Event) encodeTweetOnly() {
	if e.tweetOnly != nil || e.Kind != KindHandle || e.Tweet == nil || e.Late || e.Header.Kind != protocol.EventKindPostNew {
		return
	}
	data, err := protocol.AppendTweetData(nil, e.Tweet, protocol.TweetStandard)
	if err != nil {
		return
	}
	e.tweetOnly = protocol.AppendTweetOnlyFrame(make([]byte, 0, len(data)+40), data)
}

// AlertFrame is the Tweet Alerts `alert` frame of a new post, or nil: for
// other events, and for a post made maxAge or longer before now (spec 1:
// only posts made less than 60 seconds earlier). It is encoded on the first
// call, only when some Tweet Alerts socket wants it; the first caller's
// clock decides for every socket. Call it from Deliver only (the
// publisher's goroutine).
func (e *Event) AlertFrame(now func() time.Time, maxAge time.Duration) []byte {
	if e.alertDone {
		return e.alert
	}
	e.alertDone = true
	if e.Kind != KindHandle || e.Tweet == nil || e.Header.Kind != protocol.EventKindPostNew ||
		now().UnixMilli()-e.CreatedAt >= maxAge.Milliseconds() {
		return nil
	}
	a := protocol.NewTweetAlert(e.Tweet, e.DetectedAt)
	e.alert = protocol.TweetAlertFrame(&a)
	return e.alert
}
