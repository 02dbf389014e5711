package ws

// ClosedState says why a connection closed. It is reported once, to
// Handler.OnClose, and decided by whoever started the close: the first reason
// wins (a peer that sends garbage after the server began a shutdown is still
// ServerShutdown).
type ClosedState int32

const (
	stateOpen ClosedState = iota // not closed; never reported

	// ClientClosed: the peer sent a close frame, or the TCP connection ended
	// (EOF, reset) without one.
	ClientClosed
	// ProtocolError: an RFC 6455 violation (unmasked frame, reserved bits,
	// unknown opcode, bad fragmentation, oversized or fragmented control
	// frame, invalid close payload). Close code 1002.
	ProtocolError
	// InvalidUTF8: a text message that is not valid UTF-8. Close code 1007.
	InvalidUTF8
	// MessageTooBig: a frame or message over Options.MaxFrame or
	// Options.ReadLimit. Close code 1009.
	MessageTooBig
	// SlowConsumer: the write queue was full when a message was sent; the
	// socket is dropped without a close frame.
	SlowConsumer
	// WriteTimeout: a write made no progress for Options.WriteTimeout.
	WriteTimeout
	// ReadTimeout: no inbound byte for Options.IdleTimeout. Close code 1001.
	ReadTimeout
	// ServerShutdown: Hub.Shutdown. Close code 1001.
	ServerShutdown
	// PolicyClosed: the application closed the connection (Conn.Close,
	// Conn.CloseNow).
	PolicyClosed
	// RateLimited: more than Options.MaxFramesPerWindow frames inside one
	// Options.FrameWindow. Close code 1008.
	RateLimited
	// PongTimeout: no pong within Options.PongTimeout of a server ping.
	// Close code 1001.
	PongTimeout
	// TransportError: a read or write system call failed (reset, broken pipe).
	TransportError
	// InternalError: a handler panicked. Close code 1011.
	InternalError
)

var stateNames = [...]string{
	stateOpen:      "Open",
	ClientClosed:   "ClientClosed",
	ProtocolError:  "ProtocolError",
	InvalidUTF8:    "InvalidUTF8",
	MessageTooBig:  "MessageTooBig",
	SlowConsumer:   "SlowConsumer",
	WriteTimeout:   "WriteTimeout",
	ReadTimeout:    "ReadTimeout",
	ServerShutdown: "ServerShutdown",
	PolicyClosed:   "PolicyClosed",
	RateLimited:    "RateLimited",
	PongTimeout:    "PongTimeout",
	TransportError: "TransportError",
	InternalError:  "InternalError",
}

func (s ClosedState) String() string {
	if s >= 0 && int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "ClosedState(?)"
}
