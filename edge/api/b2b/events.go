package b2b

import (
	"errors"
	"fmt"
	"time"

	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// traceView is spec 2's event trace record.
type traceView struct {
	EventID         string           `json:"event_id"`
	Event           string           `json:"event"`
	Handle          string           `json:"handle"`
	DetectedAt      time.Time        `json:"detected_at"`
	MatchCount      int              `json:"match_count"`
	Matches         []traceMatchView `json:"matches"`
	MatchWindowSecs *int             `json:"match_window_secs,omitempty"`
}

// traceMatchView is one match. A tweet record fills the documented fields;
// a non-tweet match keeps them (tweet_id, text and tweet_created_at null)
// and adds the event it is: event_id, event and data, the event's `data`
// as the realtime WebSocket delivered it.
type traceMatchView struct {
	TweetID        *string         `json:"tweet_id"`
	Text           *string         `json:"text"`
	IsReply        bool            `json:"is_reply"`
	IsQuote        bool            `json:"is_quote"`
	TweetCreatedAt *time.Time      `json:"tweet_created_at"`
	DetectedAt     time.Time       `json:"detected_at"`
	EventID        string          `json:"event_id,omitempty"`
	Event          string          `json:"event,omitempty"`
	Data           json.RawMessage `json:"data,omitempty"`
}

// maxTraceRecords bounds what one trace lookup reads.
const maxTraceRecords = 2000

// event is GET /v1/dt/events/{event_id} (spec 2 "Trace rules").
func (a *api) event(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	id := httpkit.PathValue(ctx, "event_id")
	kind, tweetID, handle, ms, err := protocol.ParseEventID(id)
	if err != nil {
		return 0, nil, err
	}
	if kind == protocol.EventKindPostNew {
		return a.tweetTrace(p, id, tweetID)
	}
	if err := a.traceAllowed(p, kind, handle); err != nil {
		return 0, nil, err
	}
	if kind == protocol.EventKindTweetDeleted {
		return 0, nil, protocol.NotFound("deleted-post events are not retained")
	}
	window := a.k.Timings.TraceWindow
	if window <= 0 {
		window = protocol.DefaultTimings().TraceWindow
	}
	t := time.UnixMilli(ms).UTC()
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	recs, err := a.d.Store.TraceWindow(cctx, handle, t.Add(-window), t.Add(window), maxTraceRecords)
	if err != nil {
		return 0, nil, err
	}
	v := traceView{EventID: id, Event: kind.Name(), Handle: handle, DetectedAt: t, Matches: []traceMatchView{}}
	for _, r := range recs {
		if r.Event != kind.Name() {
			continue
		}
		v.Matches = append(v.Matches, traceMatchView{DetectedAt: r.EventTime, EventID: r.EventID, Event: r.Event, Data: rawJSON(r.Data)})
	}
	if len(v.Matches) == 0 {
		return 0, nil, protocol.NotFound("no " + kind.Name() + " record of @" + handle + " near that time")
	}
	secs := int(window / time.Second)
	v.MatchCount, v.MatchWindowSecs = len(v.Matches), &secs
	return 200, v, nil
}

// traceAllowed applies the WebSocket's gating to a record of handle.
func (a *api) traceAllowed(p *account.Principal, kind protocol.EventKind, handle string) error {
	if _, ok := a.d.Targets.Get(p.AccountID, handle); !ok {
		return protocol.Forbidden(fmt.Sprintf("@%s is not in your target list", handle))
	}
	if m := kind.Module(); !hasModule(p, m) {
		return errNoModule(m)
	}
	return nil
}

// tweetTrace is the record of a post event: the captured post.
func (a *api) tweetTrace(p *account.Principal, eventID, tweetID string) (int, any, error) {
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	post, err := a.d.Store.PostByID(cctx, tweetID)
	if errors.Is(err, persistence.ErrNotFound) {
		return 0, nil, protocol.NotFound("no record of " + eventID)
	}
	if err != nil {
		return 0, nil, err
	}
	if err := a.traceAllowed(p, protocol.EventKindPostNew, post.Handle); err != nil {
		return 0, nil, err
	}
	var tw protocol.Tweet
	if err := json.Unmarshal(post.Data, &tw); err != nil {
		return 0, nil, fmt.Errorf("stored post %s: %w", post.ID, err)
	}
	created := time.UnixMilli(tw.CreatedAt).UTC()
	m := traceMatchView{TweetID: &tw.ID, Text: &tw.Text, IsReply: tw.Type == protocol.PostTypeReply,
		IsQuote: tw.Type == protocol.PostTypeQuote, TweetCreatedAt: &created, DetectedAt: post.DetectedAt}
	return 200, traceView{EventID: eventID, Event: protocol.EventTraceTweetNew, Handle: post.Handle,
		DetectedAt: post.DetectedAt, MatchCount: 1, Matches: []traceMatchView{m}}, nil
}

// rawJSON passes stored event data through when it is JSON, else null.
func rawJSON(b []byte) json.RawMessage {
	if len(b) == 0 || !json.Valid(b) {
		return json.RawMessage("null")
	}
	return b
}
