package delivery

// Encoded is what a finished handle event holds besides its plain fields:
// the frames its publisher encoded. A cluster node ships it to the nodes
// whose sessions listen to the handle (engine/cluster), so that an event is
// encoded once in the cluster, not once per node.
type Encoded struct {
	// Frames are the realtime variants, by Variant (nil: not encoded).
	Frames    [variantCount][]byte
	TweetOnly []byte
	Alert     []byte
	AlertDone bool
}

// Encoded encodes e whole (Encode) and returns its frames. Call it on the
// publisher's goroutine (a Deliver does).
func (e *Event) Encoded() Encoded {
	e.Encode()
	return Encoded{Frames: e.frames, TweetOnly: e.tweetOnly, Alert: e.alert, AlertDone: e.alertDone}
}

// SetEncoded gives e the frames another node encoded, before e is published.
func (e *Event) SetEncoded(x Encoded) {
	e.frames, e.tweetOnly, e.alert, e.alertDone = x.Frames, x.TweetOnly, x.Alert, x.AlertDone
}
