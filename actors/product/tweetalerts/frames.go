package tweetalerts

import (
	"errors"
	"unicode/utf8"

	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
)

// Inbound frame types of the Tweet Alerts WebSocket (spec 1).
const (
	FrameSubscribe   = "subscribe"
	FrameUnsubscribe = "unsubscribe"
	FramePing        = "ping"
)

// Request is one decoded client frame.
type Request struct {
	Type string
	// Handles of a subscribe or unsubscribe, normalized (lowercase, no @),
	// deduplicated, in the order sent.
	Handles []string
	// Invalid are the entries that are not handles (not strings, or not 1 to
	// 50 letters, digits or underscores), as sent.
	Invalid []string
}

// maxFrameHandles bounds the handles one frame may name.
const maxFrameHandles = 1000

// Decode errors; their text goes to the client in an `error` frame.
var (
	ErrFrameJSON     = errors.New("frame is not a JSON object")
	ErrFrameType     = errors.New("unknown or missing type: send subscribe, unsubscribe or ping")
	ErrFrameHandles  = errors.New("handles must be a non-empty array of handles")
	ErrFrameTooLarge = errors.New("too many handles in one frame")
)

// DecodeRequest decodes one client frame.
func DecodeRequest(payload []byte) (Request, error) {
	var raw struct {
		Type    *string           `json:"type"`
		Handles []json.RawMessage `json:"handles"`
	}
	if !utf8.Valid(payload) || json.Unmarshal(payload, &raw) != nil {
		return Request{}, ErrFrameJSON
	}
	if raw.Type == nil {
		return Request{}, ErrFrameType
	}
	r := Request{Type: *raw.Type}
	switch r.Type {
	case FramePing:
		return r, nil
	case FrameSubscribe, FrameUnsubscribe:
	default:
		return Request{}, ErrFrameType
	}
	if len(raw.Handles) == 0 {
		return Request{}, ErrFrameHandles
	}
	if len(raw.Handles) > maxFrameHandles {
		return Request{}, ErrFrameTooLarge
	}
	seen := make(map[string]bool, len(raw.Handles))
	for _, m := range raw.Handles {
		var s string
		if json.Unmarshal(m, &s) != nil {
			r.Invalid = append(r.Invalid, string(m))
			continue
		}
		h := protocol.NormalizeHandle(s)
		if !protocol.ValidHandle(h) {
			r.Invalid = append(r.Invalid, s)
			continue
		}
		if !seen[h] {
			seen[h] = true
			r.Handles = append(r.Handles, h)
		}
	}
	return r, nil
}

// PongFrame answers a client ping.
var PongFrame = []byte(`{"type":"pong"}`)

type ackFrame struct {
	Type    string   `json:"type"`
	Action  string   `json:"action"`
	Handles []string `json:"handles"`
	Active  int      `json:"active"`
	Max     int      `json:"max"`
}

// AckFrame encodes an `ack`.
func AckFrame(action string, handles []string, active, max int) []byte {
	if handles == nil {
		handles = []string{}
	}
	b, _ := json.Marshal(ackFrame{Type: "ack", Action: action, Handles: handles, Active: active, Max: max})
	return b
}

type errorFrame struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// ErrorFrame encodes an `error` frame.
func ErrorFrame(msg string) []byte {
	b, _ := json.Marshal(errorFrame{Type: "error", Message: msg})
	return b
}
