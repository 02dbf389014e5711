package eca

import "github.com/alertd/alertd/protocol"

// Sink is a client socket as the detector sees it: Send must not block.
type Sink interface {
	Send(frame []byte) bool
}

// observed is a launchpad observation.
type observed struct{ launch *protocol.LaunchpadObs }

// subscribe adds a socket of account.
type subscribe struct {
	account string
	sink    Sink
}

// unsubscribe removes a socket.
type unsubscribe struct{ sink Sink }
