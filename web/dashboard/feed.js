// feed.js: the live feed. History comes from GET /v1/feed (paging back
// with its cursor); live posts from /v1/ws, which takes the session
// cookie, or, for a dt_ key whose key the page holds, from the B2B realtime
// socket, which also carries follows, profile changes and deletions.
import { call, wsURL } from '../shared/api.js';
import { $ } from '../shared/dom.js';
import { Reconnecting } from '../shared/socket.js';
import { fromAlert, fromTweet, renderPost, renderEvent } from './post.js';

const maxEntries = 1000; // live entries beyond this drop off the bottom

// keyCodes are the DISCONNECT codes after which logging in again cannot help.
const keyCodes = new Set(['key_missing', 'key_malformed', 'key_unknown', 'key_expired', 'key_deactivated',
  'key_blocked', 'login_invalid', 'subscription_expired']);

export class Feed {
  // onState(state, detail) drives the header's live badge; onTrouble() is
  // called when a socket closed, so the page can check its session.
  constructor({ onState, onTrouble }) {
    this.onState = onState;
    this.onTrouble = onTrouble;
    this.list = $('#feed-list');
    this.status = $('#feed-status');
    this.older = $('#feed-older');
    this.filterBox = $('#feed-filter');
    this.entries = new Map(); // id -> li
    this.next = null;
    this.handles = [];
    this.socket = null;
    this.key = ''; // a dt_ key for the realtime socket; never stored anywhere else
    this.older.addEventListener('click', () => this.loadOlder());
    this.filterBox.addEventListener('input', () => this.applyFilter());
  }

  // start shows history and goes live; handles are the tracked ones. The
  // free Tweet Alerts plan has no socket (spec 1): history only.
  async start(product, handles, key, tier) {
    this.stop();
    this.tier = tier;
    this.product = product;
    this.handles = handles;
    this.key = key || '';
    this.entries.clear();
    this.list.replaceChildren();
    this.next = null;
    await this.loadOlder();
    if (product === 'xg' && tier === 'free') {
      this.onState('stopped');
      this.status.textContent = 'The free plan has no live feed: reload the page to see new posts.';
      return;
    }
    this.connect();
  }

  stop() {
    if (this.socket) this.socket.stop();
    this.socket = null;
    clearInterval(this.beat);
  }

  // forgetKey drops the dt_ key (sign-out, or the server refused it).
  forgetKey() { this.key = ''; }

  setHandles(handles) {
    const gone = this.handles.filter((x) => !handles.includes(x));
    const added = handles.filter((x) => !this.handles.includes(x));
    this.handles = handles;
    if (!this.socket || this.key) return; // the realtime socket follows the target list itself
    if (gone.length) this.socket.send({ type: 'unsubscribe', handles: gone });
    if (added.length) this.socket.send({ type: 'subscribe', handles: added });
  }

  async loadOlder() {
    this.older.disabled = true;
    try {
      const q = new URLSearchParams({ limit: '50' });
      if (this.next) q.set('before', this.next);
      const page = await call('GET', '/v1/feed?' + q);
      for (const item of page.items) this.add('p:' + item.tweet_id, renderPost(fromAlert(item)), false);
      this.next = page.next_before;
      this.older.hidden = !this.next;
      if (!this.entries.size) this.status.textContent = 'No posts yet from the accounts you track.';
    } catch (e) {
      this.status.textContent = 'History could not be loaded: ' + e.message;
    } finally {
      this.older.disabled = false;
    }
  }

  // add puts an entry at the top (live) or the bottom (history), once.
  add(id, li, live) {
    const had = this.entries.get(id);
    if (had) {
      if (live) had.replaceWith(li); else return;
    } else if (live) {
      this.list.prepend(li);
      li.classList.add('fresh');
    } else {
      this.list.append(li);
    }
    this.entries.set(id, li);
    this.filterOne(li);
    if (live && this.entries.size > maxEntries) {
      const last = this.list.lastElementChild;
      for (const [k, v] of this.entries) if (v === last) { this.entries.delete(k); break; }
      last.remove();
    }
  }

  applyFilter() { for (const li of this.list.children) this.filterOne(li); }

  filterOne(li) {
    const q = this.filterBox.value.trim().toLowerCase();
    li.hidden = q !== '' && !(li.dataset.search || '').includes(q);
  }

  connect() {
    if (this.key) this.connectRealtime(); else this.connectAlerts();
  }

  // connectAlerts: /v1/ws with the cookie; subscribe to every tracked
  // handle the plan allows.
  connectAlerts() {
    this.socket = new Reconnecting({
      url: wsURL('/v1/ws'),
      onState: (s, d) => this.onState(s, d),
      onOpen: () => {
        if (this.handles.length) this.socket.send({ type: 'subscribe', handles: this.handles });
        else { this.socket.live(); this.status.textContent = 'Live. Track accounts to see their posts here.'; }
      },
      onMessage: (data) => {
        const m = JSON.parse(data);
        if (m.type === 'alert') this.add('p:' + m.tweet_id, renderPost(fromAlert(m)), true);
        else if (m.type === 'ack') {
          this.socket.live();
          this.status.textContent = `Live: ${m.active} of at most ${m.max} accounts.`;
        } else if (m.type === 'error') this.status.textContent = m.message;
      },
      onGiveUp: () => { this.onTrouble(); return false; },
    });
    this.socket.start();
  }

  // connectRealtime: the B2B realtime socket (spec 2): HELLO, LOGIN with
  // the key, READY, then events; a heartbeat every heartbeat_interval.
  connectRealtime() {
    let refused = '';
    this.socket = new Reconnecting({
      url: wsURL('/v1/dt/realtime/ws'),
      onState: (s, d) => this.onState(s, d),
      onMessage: (data, ws) => {
        const m = JSON.parse(data);
        switch (m.op) {
          case 10: // HELLO
            ws.send(JSON.stringify({ op: 2, d: this.key }));
            clearInterval(this.beat);
            this.beat = setInterval(() => {
              if (ws.readyState === WebSocket.OPEN) ws.send('{"op":1}'); else clearInterval(this.beat);
            }, m.d.heartbeat_interval);
            break;
          case 4: // READY
            this.socket.live();
            this.status.textContent = `Live: every event of your targets (modules: ${m.d.modules.join(', ')}).`;
            break;
          case 0: this.event(m.d); break;
          case 3: // DISCONNECT
            if (keyCodes.has(m.d.code)) refused = m.d.message || m.d.reason;
            break;
        }
      },
      onGiveUp: () => {
        clearInterval(this.beat);
        if (!refused) { this.onTrouble(); return false; }
        // The key no longer logs in: drop it, show posts over the cookie.
        this.key = '';
        this.status.textContent = 'The realtime socket refused the key (' + refused + '); showing posts only.';
        queueMicrotask(() => { this.connectAlerts(); this.onTrouble(); });
        return true;
      },
    });
    this.socket.start();
  }

  event(ev) {
    const handle = ev.task_info && ev.task_info.handle;
    if (ev.event === 'social.post.new' || ev.event === 'social.post.update') {
      this.add('p:' + ev.data.id, renderPost(fromTweet(ev.data, handle), ev.event === 'social.post.update' ? 'updated' : ''), true);
    } else {
      this.add(ev.event_id, renderEvent(ev), true);
    }
  }
}
