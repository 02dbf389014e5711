package pumpfun

import (
	"context"

	"github.com/alertd/alertd/protocol"
)

// Sink is a client socket as the detector sees it: Send must not block.
type Sink interface {
	Send(frame []byte) bool
}

// Jobs runs store writes off the hot path (the engine's writer).
type Jobs interface {
	Do(name string, f func(ctx context.Context) error)
}

// observed is a launchpad, callout or market_cap observation.
type observed struct {
	obs *protocol.Observation
}

// subscribe adds a socket with its account's list as read at connect.
type subscribe struct {
	sink    Sink
	account string
	wallets map[string]alertBits
}

// unsubscribe removes a socket.
type unsubscribe struct{ sink Sink }
