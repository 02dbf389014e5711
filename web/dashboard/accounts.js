// accounts.js: the tracked accounts (xg_) or B2B targets (dt_), both
// through /v1/accounts: add up to 25 at once, remove, and for Tweet Alerts
// keywords, mute and the per-account filters.
import { call } from '../shared/api.js';
import { h, $, fill, say, when } from '../shared/dom.js';

const maxAdd = 25; // handles per POST /v1/accounts (spec 1)

export class Accounts {
  // onChange(handles) hears the active handles after every change.
  constructor({ onChange, onAuthLost }) {
    this.onChange = onChange;
    this.onAuthLost = onAuthLost;
    this.msg = $('#accounts-msg');
    $('#accounts-add').addEventListener('submit', (e) => { e.preventDefault(); this.add(); });
  }

  setProduct(product) {
    this.product = product;
    $('#accounts-title').textContent = product === 'dt' ? 'Targets' : 'Tracked accounts';
    const head = product === 'dt'
      ? ['Handle', 'Status', 'Added', '']
      : ['Handle', 'Keywords (chat alerts)', 'Muted', 'Filters (chat alerts)', 'Added', ''];
    fill($('#accounts-table thead'), h('tr', {}, head.map((t, i) =>
      h('th', { class: i === head.length - 2 ? 'opt' : null }, t || h('span', { class: 'visually-hidden' }, 'Actions')))));
  }

  // load reads the list and returns the active handles.
  async load() {
    const d = await call('GET', '/v1/accounts');
    this.limit = d.limit;
    $('#accounts-usage').textContent = `${d.count} of ${d.limit} used`;
    fill($('#accounts-table tbody'), d.accounts.length
      ? d.accounts.map((a) => this.row(a))
      : h('tr', {}, h('td', { colspan: 6, class: 'muted' }, 'Nothing tracked yet.')));
    return d.accounts.filter((a) => a.is_active).map((a) => a.handle);
  }

  async refresh() {
    try {
      this.onChange(await this.load());
    } catch (e) {
      this.fail(e);
    }
  }

  fail(e) {
    if (e.status === 401) this.onAuthLost();
    else say(this.msg, e.message, 'error');
  }

  async add() {
    const box = $('#accounts-handles');
    const handles = [...new Set(box.value.split(/[\s,;]+/).map((x) => x.replace(/^@/, '').trim().toLowerCase()).filter(Boolean))];
    if (!handles.length) return;
    if (handles.length > maxAdd) {
      say(this.msg, `At most ${maxAdd} handles at once (you entered ${handles.length}).`, 'error');
      return;
    }
    try {
      const d = await call('POST', '/v1/accounts', { body: { handles } });
      const added = d.added || [];
      const existing = d.already_exists || [];
      const skipped = handles.filter((x) => !added.includes(x) && !existing.includes(x));
      const parts = [`Added ${added.length}` + (added.length ? ': ' + added.join(', ') : '') + '.'];
      if (existing.length) parts.push(`Already tracked: ${existing.join(', ')}.`);
      if (skipped.length) parts.push(`Skipped (unknown, suspended or over the limit): ${skipped.join(', ')}.`);
      say(this.msg, parts.join(' '), added.length ? 'ok' : '');
      box.value = '';
      await this.refresh();
    } catch (e) {
      this.fail(e);
    }
  }

  async remove(handle) {
    if (!confirm(`Stop tracking @${handle}?`)) return;
    try {
      await call('DELETE', '/v1/accounts/' + encodeURIComponent(handle));
      say(this.msg, `Removed @${handle}.`, 'ok');
      await this.refresh();
    } catch (e) {
      this.fail(e);
    }
  }

  row(a) {
    const remove = h('button', { type: 'button', class: 'small danger', 'aria-label': `Remove @${a.handle}`,
      onclick: () => this.remove(a.handle) }, 'Remove');
    const added = h('td', { class: 'opt' }, when(a.added_at));
    if (this.product === 'dt') {
      return h('tr', {}, h('td', {}, '@' + a.handle), h('td', {}, a.is_active ? 'active' : 'paused by the system'), added, h('td', {}, remove));
    }
    const base = `/v1/accounts/${encodeURIComponent(a.handle)}`;
    const kw = h('input', { type: 'text', class: 'keywords', value: a.keywords.join(', '),
      'aria-label': `Keywords for @${a.handle}, separated by commas` });
    const saveKw = h('button', { type: 'button', class: 'small', onclick: async () => {
      const keywords = kw.value.split(',').map((x) => x.trim()).filter(Boolean);
      try {
        if (keywords.length) await call('PUT', base + '/keywords', { body: { keywords } });
        else await call('DELETE', base + '/keywords');
        say(this.msg, `Keywords of @${a.handle} saved.`, 'ok');
      } catch (e) { this.fail(e); }
    } }, 'Save');
    const mute = h('input', { type: 'checkbox', checked: a.muted, 'aria-label': `Mute @${a.handle}` });
    mute.addEventListener('change', async () => {
      try { await call('PUT', base + '/mute', { body: { muted: mute.checked } }); } catch (e) { mute.checked = !mute.checked; this.fail(e); }
    });
    const filter = (field, label) => {
      const box = h('input', { type: 'checkbox', checked: a[field] });
      box.addEventListener('change', async () => {
        try { await call('PATCH', base + '/filters', { body: { [field]: box.checked } }); } catch (e) { box.checked = !box.checked; this.fail(e); }
      });
      return h('label', { class: 'check' }, box, label);
    };
    return h('tr', {},
      h('td', {}, '@' + a.handle, a.is_active ? null : h('span', { class: 'chip' }, 'over the plan')),
      h('td', {}, h('div', { class: 'row' }, kw, saveKw)),
      h('td', {}, mute),
      h('td', {}, filter('exclude_replies', 'no replies'), filter('exclude_reposts', 'no reposts'), filter('exclude_quotes', 'no quotes')),
      added, h('td', {}, remove));
  }
}
