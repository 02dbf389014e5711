package edge

import (
	"sync"
	"time"

	"github.com/alertd/alertd/edge/ws"
	gws "github.com/gobwas/ws"
)

// productSocketOpenWithin bounds the wait between registering a product
// socket and its OnOpen: a hijack that fails after Upgrade returned never opens.
const productSocketOpenWithin = 30 * time.Second

// maxHeldFrames bounds the frames held for a socket that has not opened yet.
const maxHeldFrames = 256

// productSink is a product WebSocket as the product actors see it. It is
// registered before the upgrade, so that every event published after the
// client received the 101 reaches it; frames sent before the socket opens
// are held (up to maxHeldFrames) and written first. release unregisters it.
type productSink struct {
	mu      sync.Mutex
	conn    *ws.Conn
	held    [][]byte
	closed  bool
	timer   *time.Timer
	release func()
}

// Send queues a frame; it never blocks.
func (k *productSink) Send(f []byte) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	switch {
	case k.closed:
		return false
	case k.conn != nil:
		return k.conn.Send(f)
	case len(k.held) < maxHeldFrames:
		k.held = append(k.held, f)
		return true
	}
	return false
}

// expireUnopened closes the sink if the socket has not opened in time; call
// it with k.mu held.
func (k *productSink) expireUnopened() {
	k.timer = time.AfterFunc(productSocketOpenWithin, k.close)
}

func (k *productSink) open(c *ws.Conn) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.timer != nil {
		k.timer.Stop()
	}
	if k.closed {
		c.Close(gws.StatusGoingAway, "closed")
		return
	}
	k.conn = c
	for _, f := range k.held {
		c.Send(f)
	}
	k.held = nil
}

// close unregisters the socket, once.
func (k *productSink) close() {
	k.mu.Lock()
	if k.closed {
		k.mu.Unlock()
		return
	}
	k.closed = true
	if k.timer != nil {
		k.timer.Stop()
	}
	k.held = nil
	k.mu.Unlock()
	if k.release != nil {
		k.release()
	}
}
