// socket.js: a WebSocket that reconnects on its own, with backoff (1 s,
// 2 s, 4 s ... capped at 30 s, with jitter, as spec 2 asks of clients), and
// says what state it is in so the page can show when it is offline.

export class Reconnecting {
  // url: the ws:// address. onOpen(ws), onMessage(data, ws): the caller's.
  // onState(state, detail): 'connecting', 'live', 'offline' (detail: the
  // seconds until the next try) or 'stopped'. onGiveUp(closeEvent) may
  // return true to stop trying (a refused key).
  constructor({ url, onOpen, onMessage, onState, onGiveUp }) {
    Object.assign(this, { url, onOpen, onMessage, onState, onGiveUp });
    this.ws = null;
    this.failures = 0;
    this.timer = 0;
    this.stopped = true;
    this.online = () => { if (!this.stopped && !this.ws) this.connectNow(); };
  }

  start() {
    this.stopped = false;
    window.addEventListener('online', this.online);
    this.connectNow();
  }

  stop() {
    this.stopped = true;
    window.removeEventListener('online', this.online);
    clearTimeout(this.timer);
    const ws = this.ws;
    this.ws = null;
    if (ws) ws.close(1000, 'page closed the view');
    this.onState && this.onState('stopped');
  }

  send(obj) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(obj));
      return true;
    }
    return false;
  }

  // live: the caller saw the connection work (first frame); backoff resets.
  live() {
    this.failures = 0;
    this.onState && this.onState('live');
  }

  connectNow() {
    clearTimeout(this.timer);
    this.onState && this.onState('connecting');
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch {
      this.retry();
      return;
    }
    this.ws = ws;
    ws.addEventListener('open', () => this.onOpen && this.onOpen(ws));
    ws.addEventListener('message', (ev) => { if (this.ws === ws) this.onMessage(ev.data, ws); });
    ws.addEventListener('close', (ev) => {
      if (this.ws !== ws) return; // stopped or replaced
      this.ws = null;
      if (this.stopped) return;
      if (this.onGiveUp && this.onGiveUp(ev)) {
        this.stopped = true;
        this.onState && this.onState('stopped');
        return;
      }
      this.retry();
    });
  }

  retry() {
    const base = Math.min(30, 2 ** Math.min(this.failures, 5));
    this.failures++;
    const secs = Math.max(1, Math.round(base * (0.8 + Math.random() * 0.4)));
    this.onState && this.onState('offline', secs);
    this.timer = setTimeout(() => this.connectNow(), secs * 1000);
  }
}
