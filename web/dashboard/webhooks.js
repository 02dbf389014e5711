// webhooks.js: create (the signing secret is shown once, then dropped from
// the page), list and delete Tweet Alerts webhooks, and read one webhook's
// delivery log (GET /v1/webhooks/{id}/deliveries), newest first.
import { call } from '../shared/api.js';
import { h, $, fill, say, when, copyButton } from '../shared/dom.js';

const list = (s) => s.split(',').map((x) => x.trim().replace(/^@/, '')).filter(Boolean);

export class Webhooks {
  constructor({ onAuthLost }) {
    this.onAuthLost = onAuthLost;
    this.msg = $('#webhooks-msg');
    $('#webhooks-add').addEventListener('submit', (e) => { e.preventDefault(); this.create(); });
    $('#deliveries-more').addEventListener('click', () => this.deliveries(this.shown, this.cursor));
  }

  fail(e) {
    if (e.status === 401) this.onAuthLost(); else say(this.msg, e.message, 'error');
  }

  async load() {
    try {
      const d = await call('GET', '/v1/webhooks');
      $('#webhooks-usage').textContent = `${d.count} of ${d.limit} used`;
      fill($('#webhooks-table tbody'), d.webhooks.length ? d.webhooks.map((w) => this.row(w))
        : h('tr', {}, h('td', { colspan: 5, class: 'muted' }, 'No webhooks yet.')));
    } catch (e) {
      this.fail(e);
    }
  }

  async create() {
    const body = { url: $('#webhook-url').value.trim() };
    const handles = list($('#webhook-handles').value);
    const keywords = list($('#webhook-keywords').value);
    if (handles.length) body.filter_handles = handles;
    if (keywords.length) body.filter_keywords = keywords;
    try {
      const w = await call('POST', '/v1/webhooks', { body });
      $('#webhooks-add').reset();
      say(this.msg, '', '');
      this.showSecret(w);
      await this.load();
    } catch (e) {
      this.fail(e);
    }
  }

  // showSecret shows the secret once; Done removes it from the page.
  showSecret(w) {
    const box = $('#webhook-secret');
    const done = h('button', { type: 'button', class: 'primary' }, 'I have saved it');
    fill(box,
      h('strong', {}, `Signing secret of webhook ${w.id}: shown this once.`),
      h('p', { class: 'note' }, 'Verify X-Signature (HMAC-SHA256 of the raw body with this secret) in your receiver. The server never shows it again.'),
      h('code', { id: 'webhook-secret-value' }, w.secret),
      h('div', { class: 'row' }, copyButton(w.secret, 'Copy secret'), done));
    box.hidden = false;
    done.addEventListener('click', () => { box.replaceChildren(); box.hidden = true; });
    done.focus();
  }

  row(w) {
    const filters = [
      w.filter_handles.length ? 'handles: ' + w.filter_handles.join(', ') : 'all tracked accounts',
      w.filter_keywords.length ? 'keywords: ' + w.filter_keywords.join(', ') : null,
    ].filter(Boolean).join('; ');
    const status = w.consecutive_failures ? `${w.consecutive_failures} failed in a row` : 'active';
    const del = h('button', { type: 'button', class: 'small danger', 'aria-label': `Delete webhook ${w.id}`, onclick: async () => {
      if (!confirm(`Delete webhook ${w.id} (${w.url})?`)) return;
      try {
        await call('DELETE', '/v1/webhooks/' + w.id);
        say(this.msg, `Webhook ${w.id} deleted.`, 'ok');
        await this.load();
      } catch (e) { this.fail(e); }
    } }, 'Delete');
    const log = h('button', { type: 'button', class: 'small', 'aria-label': `Deliveries of webhook ${w.id}`,
      onclick: () => this.deliveries(w, null) }, 'Deliveries');
    return h('tr', {}, h('td', { class: 'mono' }, w.url), h('td', { class: 'opt' }, filters),
      h('td', {}, status), h('td', { class: 'opt' }, when(w.created_at)), h('td', { class: 'row' }, log, del));
  }

  // deliveries shows a page of w's delivery log; a cursor appends the page
  // below the one shown.
  async deliveries(w, cursor) {
    try {
      const q = cursor ? '?cursor=' + encodeURIComponent(cursor) : '';
      const d = await call('GET', `/v1/webhooks/${w.id}/deliveries${q}`);
      const table = $('#deliveries-table');
      const rows = d.deliveries.map((x) => deliveryRow(x));
      if (cursor) rows.forEach((r) => $('tbody', table).append(r));
      else fill($('tbody', table), rows.length ? rows : h('tr', {}, h('td', { colspan: 6, class: 'muted' }, 'Nothing delivered yet.')));
      this.shown = w;
      this.cursor = d.next_cursor;
      table.hidden = false;
      $('#deliveries-note').textContent = `Deliveries to ${w.url}, newest first.`;
      $('#deliveries-more').hidden = !d.next_cursor;
    } catch (e) {
      this.fail(e);
    }
  }
}

// deliveryRow is one delivery: its last attempt's status code (or the error
// when the receiver did not answer) and latency; every attempt in a title.
function deliveryRow(x) {
  const last = x.attempts[x.attempts.length - 1];
  const status = !last ? '—' : last.status_code !== null ? String(last.status_code) : (last.error || last.result);
  const detail = x.attempts.map((a, i) => `attempt ${i + 1}: ${a.status_code ?? a.error ?? ''} ${a.result} in ${a.latency_ms} ms`).join('\n');
  return h('tr', { class: 'delivery', title: detail },
    h('td', { class: 'mono' }, x.delivery_id), h('td', {}, x.state), h('td', {}, String(x.attempts.length)),
    h('td', {}, status), h('td', {}, last ? last.latency_ms + ' ms' : '—'), h('td', { class: 'opt' }, when(x.created_at)));
}
