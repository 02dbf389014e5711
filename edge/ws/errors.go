package ws

import "errors"

// Errors returned by Hub.Upgrade. When Upgrade returns one of them it has
// already written a plain-text HTTP answer on the request context.
var (
	// ErrBadHandshake: the request is not a valid RFC 6455 opening handshake
	// (answered 400, or 426 for a wrong Sec-WebSocket-Version).
	ErrBadHandshake = errors.New("ws: bad handshake")
	// ErrHubClosed: the hub is not started or is shutting down (answered 503).
	ErrHubClosed = errors.New("ws: hub not running")
	// ErrNoFD: the hijacked connection has no file descriptor (TLS or an
	// unknown wrapper); the socket is closed.
	ErrNoFD = errors.New("ws: connection has no file descriptor")
)

// Errors given to Handler.OnAbort (besides ErrHubClosed, ErrNoFD and the
// system call's error when the 101 could not be written).
var (
	// ErrUpgradeLost: fasthttp closed the connection before handing it over.
	ErrUpgradeLost = errors.New("ws: connection closed before the upgrade")
	// ErrPreparePanicked: OnPrepare panicked; the connection is dropped.
	ErrPreparePanicked = errors.New("ws: OnPrepare panicked")
)
