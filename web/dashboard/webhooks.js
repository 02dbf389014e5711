// webhooks.js: create (the signing secret is shown once, then dropped from
// the page), list and delete Tweet Alerts webhooks.
import { call } from '../shared/api.js';
import { h, $, fill, say, when, copyButton } from '../shared/dom.js';

const list = (s) => s.split(',').map((x) => x.trim().replace(/^@/, '')).filter(Boolean);

export class Webhooks {
  constructor({ onAuthLost }) {
    this.onAuthLost = onAuthLost;
    this.msg = $('#webhooks-msg');
    $('#webhooks-add').addEventListener('submit', (e) => { e.preventDefault(); this.create(); });
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
    return h('tr', {}, h('td', { class: 'mono' }, w.url), h('td', { class: 'opt' }, filters),
      h('td', {}, status), h('td', { class: 'opt' }, when(w.created_at)), h('td', {}, del));
  }
}
