package trending

import "github.com/alertd/alertd/protocol"

// Sink is a client socket as the stream sees it: Send must not block (the
// transport queues or drops the socket).
type Sink interface {
	Send(frame []byte) bool
}

// observed is a trending observation, sent by the trending tap.
type observed struct {
	obs *protocol.TrendingObs
}

// subscribe adds a socket to the stream.
type subscribe struct{ sink Sink }

// unsubscribe removes a socket from the stream.
type unsubscribe struct{ sink Sink }
