// Package delivery carries derived events from the actor that owns a handle to
// the sessions that watch it. Each event is encoded once per protocol variant
// it needs (standard or enterprise payload, live or delayed), and every
// session gets the same bytes; sessions decide delivery from metadata carried
// beside the bytes, never by parsing them.
package delivery

import (
	"github.com/alertd/alertd/protocol"
)

// Variant selects one encoding of an event.
type Variant uint8

const (
	VariantStandard   Variant = 0
	VariantEnterprise Variant = 1 << 0 // ocr_text and extracted_cas on posts
	VariantDelayed    Variant = 1 << 1 // late delivery: delayed and delay_ms
	variantCount              = 4
)

// Event is one event ready for delivery. It is built and encoded by the one
// actor that publishes it; once published it is read-only.
type Event struct {
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

	frames    [variantCount][]byte
	tweetOnly []byte
}

// Frame returns the EVENT frame of variant v, encoding it on first use. Only
// the publishing actor calls Frame before publication; afterwards frames
// must all have been encoded (see Encode).
func (e *Event) Frame(v Variant) []byte {
	if f := e.frames[v]; f != nil {
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

// Encode encodes every variant the event can be delivered in, so that
// sessions on other goroutines only ever read finished frames.
func (e *Event) Encode() {
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

// FrameFor returns the frame a session with the given traits gets.
func (e *Event) FrameFor(enterprise bool) []byte {
	v := VariantStandard
	if enterprise && e.Tweet != nil {
		v = VariantEnterprise
	}
	if e.Late {
		v |= VariantDelayed
	}
	return e.frames[v]
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
// /social/tweet/websocket): {"event_type":"tweet","data":<tweet payload>}.
// Encode builds it for live post.new events; it is nil otherwise.
func (e *Event) TweetOnlyFrame() []byte { return e.tweetOnly }

func (e *Event) encodeTweetOnly() {
	if e.Tweet == nil || e.Late || e.Header.Kind != protocol.EventKindPostNew || e.tweetOnly != nil {
		return
	}
	data, err := protocol.AppendTweetData(nil, e.Tweet, protocol.TweetStandard)
	if err != nil {
		return
	}
	f := make([]byte, 0, len(data)+40)
	f = append(f, `{"event_type":"tweet","data":`...)
	f = append(f, data...)
	e.tweetOnly = append(f, '}')
}
