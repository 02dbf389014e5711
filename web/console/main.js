// main.js: the operator console. It signs in with the admin token (kept in
// sessionStorage: this tab only, gone when it closes), polls
// GET /admin/v1/stats every 2 s and the accounts every 15 s, and issues,
// changes and revokes keys through the admin API.
import { call } from '../shared/api.js';
import { h, $, fill, say, when, bytes, copyButton } from '../shared/dom.js';
import { draw } from './chart.js';

const tokenKey = 'alertd-admin-token';
const statsEvery = 2000;
const accountsEvery = 15000;
const windowMs = 10 * 60 * 1000;

const socketNames = {
  realtime: 'B2B realtime (/v1/dt/realtime/ws)',
  tweet_only: 'B2B tweet-only (/v1/dt/ws)',
  xg: 'Tweet Alerts (/v1/ws)',
  product: 'Product sockets (/v1/<product>/ws)',
};
const series = [
  { key: 'ingest_accepted', label: 'observations in' },
  { key: 'frames', label: 'frames out' },
  { key: 'ingest_rejected', label: 'rejected' },
  { key: 'webhooks_delivered', label: 'webhooks delivered' },
];
const plans = {
  xg: ['free', 'starter', 'growth', 'pro', 'business', 'scale', 'enterprise', 'ultra'],
  dt: ['starter', 'pro', 'enterprise'],
};

let token = sessionStorage.getItem(tokenKey) || '';
let timers = [];
let accountsData = [];

const admin = (method, path, body) => call(method, path, { token, body });

async function signIn(t) {
  token = t;
  try {
    await admin('GET', '/admin/v1/stats');
  } catch (e) {
    token = '';
    sessionStorage.removeItem(tokenKey);
    return e.status === 401 ? 'This admin token was not accepted.' : 'Sign-in failed: ' + e.message;
  }
  sessionStorage.setItem(tokenKey, t);
  $('#signin-view').hidden = true;
  $('#app').hidden = false;
  $('#signout').hidden = false;
  $('#updated').hidden = false;
  await Promise.all([refreshStats(), refreshAccounts(true)]);
  timers = [setInterval(refreshStats, statsEvery), setInterval(() => refreshAccounts(false), accountsEvery)];
  return '';
}

function signOut(message) {
  timers.forEach(clearInterval);
  timers = [];
  token = '';
  sessionStorage.removeItem(tokenKey);
  $('#app').hidden = true;
  $('#signout').hidden = true;
  $('#updated').hidden = true;
  $('#signin-view').hidden = false;
  say($('#signin-msg'), message || '', message ? 'error' : '');
}

function failed(e, where) {
  if (e.status === 401) return signOut('The admin token is no longer accepted.');
  const b = $('#updated');
  b.dataset.state = 'offline';
  b.textContent = `Update failed (${where}): ${e.message}`;
}

async function refreshStats() {
  let s;
  try {
    s = await admin('GET', '/admin/v1/stats');
  } catch (e) {
    return failed(e, 'stats');
  }
  const b = $('#updated');
  b.dataset.state = 'live';
  b.textContent = 'Updated ' + new Date(s.time).toLocaleTimeString();
  $('#conn-total').textContent = String(s.connections.total);
  fill($('#conn-table tbody'), Object.keys(socketNames).map((k) =>
    h('tr', { 'data-kind': k }, h('td', {}, socketNames[k]), h('td', { class: 'num' }, String(s.connections.by_kind[k] || 0)))));
  const last = s.rates.samples.length ? s.rates.samples[s.rates.samples.length - 1] : {};
  fill($('#totals'),
    h('dt', {}, 'Observations accepted'), h('dd', {}, `${s.ingest.accepted} (${last.ingest_accepted || 0}/s)`),
    h('dt', {}, 'Observations rejected'), h('dd', {}, String(s.ingest.rejected)),
    h('dt', {}, 'Waiting in the actors'), h('dd', {}, String(s.ingest.backlog)),
    h('dt', {}, 'Frames written'), h('dd', {}, `${s.deliveries.frames} (${last.frames || 0}/s)`),
    h('dt', {}, 'Webhooks delivered'), h('dd', {}, String(s.deliveries.webhooks_delivered)),
    h('dt', {}, 'Webhooks failed'), h('dd', {}, String(s.deliveries.webhooks_failed)));
  fill($('#store'),
    h('dt', {}, 'Store'), h('dd', {}, s.store.kind),
    h('dt', {}, 'Size'), h('dd', {}, bytes(s.store.size_bytes)),
    h('dt', {}, 'Cluster'), h('dd', {}, s.cluster ? 'clustered' : 'single node'));
  // The x axis spans what was sampled (the server keeps 10 minutes), at least a minute.
  const span = s.rates.samples.length ? Math.min(windowMs, Math.max(60000, Date.parse(s.time) - s.rates.samples[0].t)) : windowMs;
  draw($('#chart'), s.rates.samples, series, span);
  fill($('#chart-legend'), series.map(({ label }, i) => h('span', {}, h('i', { class: 's' + i }), label)));
  fill($('#queues-table tbody'), s.webhooks.length ? s.webhooks.map((q) => h('tr', {},
    h('td', {}, q.product), h('td', {}, q.endpoints === null ? '—' : String(q.endpoints)), h('td', {}, String(q.published)), h('td', {}, String(q.delivered)),
    h('td', {}, String(q.retried)), h('td', {}, String(q.failed)), h('td', {}, String(q.disabled)))) : h('tr', {}, h('td', { colspan: 7 }, 'No webhook engine.')));
  fill($('#failing-table tbody'), s.failing_endpoints.length ? s.failing_endpoints.map((f) => h('tr', {},
    h('td', {}, f.product), h('td', {}, String(f.id)), h('td', { class: 'mono' }, f.account_id), h('td', { class: 'mono' }, f.url),
    h('td', {}, String(f.consecutive_failures)))) : h('tr', {}, h('td', { colspan: 5, class: 'muted' }, 'None: every endpoint answered its last delivery.')));
  const c = s.chat;
  fill($('#chat-table tbody'), c ? h('tr', {}, ...[c.queued, c.chats, c.sent, c.rate_limited, c.retried, c.failed, c.blocked, c.digests]
    .map((n) => h('td', {}, String(n)))) : h('tr', {}, h('td', { colspan: 8, class: 'muted' }, 'No chat bot: the server runs without a bot token.')));
  fill($('#closes-table tbody'), s.closes.length ? s.closes.map((c) => h('tr', {},
    h('td', {}, c.kind), h('td', {}, c.reason), h('td', {}, String(c.count)))) : h('tr', {}, h('td', { colspan: 3, class: 'muted' }, 'No socket closed yet.')));
}

// refreshAccounts reads the accounts again; the periodic refresh leaves
// the table alone while the operator is in it (a plan being typed stays).
async function refreshAccounts(force) {
  try {
    accountsData = (await admin('GET', '/admin/v1/accounts')).accounts;
  } catch (e) {
    return failed(e, 'accounts');
  }
  if (force === true || !$('#accounts-table').contains(document.activeElement)) renderAccounts();
}

function renderAccounts() {
  const q = $('#accounts-filter').value.trim().toLowerCase();
  const rows = accountsData.filter((a) => !q || a.account_id.includes(q) || a.subscriptions.some((s) => s.product.includes(q) || s.plan.includes(q)));
  fill($('#accounts-table tbody'), rows.length ? rows.slice(0, 200).map(accountRow)
    : h('tr', {}, h('td', { colspan: 3, class: 'muted' }, 'No accounts.')));
}

function accountRow(a) {
  return h('tr', { 'data-account': a.account_id },
    h('td', {}, h('code', {}, a.account_id), h('div', { class: 'muted' }, when(a.last_change))),
    h('td', {}, a.subscriptions.map((s) => subRow(a, s))),
    h('td', {}, a.keys.map((k) => keyRow(a, k))));
}

function subRow(a, s) {
  const plan = h('input', { type: 'text', value: s.plan, 'aria-label': `Plan of ${a.account_id} ${s.product}`, list: 'plans-' + s.product });
  const form = h('form', { class: 'inline' }, plan, h('button', { type: 'submit', class: 'small' }, 'Change plan'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      await admin('PATCH', `/admin/v1/accounts/${encodeURIComponent(a.account_id)}/products/${s.product}`, { plan: plan.value.trim() });
      say($('#accounts-msg'), `${a.account_id} ${s.product}: plan ${plan.value.trim()}.`, 'ok');
      refreshAccounts(true);
    } catch (err) {
      if (err.status === 401) return signOut('The admin token is no longer accepted.');
      say($('#accounts-msg'), err.message, 'error');
    }
  });
  // The admin API's view: the size fields and modules only where the product has them.
  const limits = [s.max_handles && `${s.max_handles} handles`, s.max_tweets && `${s.max_tweets} tweets`,
    s.max_wallets && `${s.max_wallets} wallets`, s.modules?.length && s.modules.join('+')].filter(Boolean).join(', ');
  return h('div', { class: 'sub' }, h('strong', {}, s.product), form,
    h('span', { class: 'muted' }, [limits, s.expires_at ? 'ends ' + when(s.expires_at) : 'no end date'].filter(Boolean).join(' · ')));
}

function keyRow(a, k) {
  const revoke = k.state === 'active' ? h('button', { type: 'button', class: 'small danger',
    'aria-label': `Revoke ${k.product} key ${k.key_id.slice(0, 12)} of ${a.account_id}`, onclick: async () => {
      if (!confirm(`Revoke the ${k.product} key ${k.key_id.slice(0, 12)}… of ${a.account_id}? Its sockets close within the heartbeat interval.`)) return;
      try {
        await admin('DELETE', `/admin/v1/accounts/${encodeURIComponent(a.account_id)}/keys/${k.key_id}`);
        say($('#accounts-msg'), `Key ${k.key_id.slice(0, 12)}… revoked.`, 'ok');
        refreshAccounts(true);
      } catch (err) {
        if (err.status === 401) return signOut('The admin token is no longer accepted.');
        say($('#accounts-msg'), err.message, 'error');
      }
    } }, 'Revoke') : null;
  return h('div', { class: 'key', 'data-state': k.state }, h('span', {}, k.product), h('code', { title: k.key_id }, k.key_id.slice(0, 12) + '…'),
    h('span', {}, k.state), revoke);
}

// The issue form: fields that do not apply to the product hide.
function productChanged() {
  const p = $('#f-product').value;
  for (const e of document.querySelectorAll('#issue [data-for]')) e.hidden = !e.dataset.for.split(' ').includes(p);
  fill($('#plans'), (plans[p] || []).map((x) => h('option', { value: x })));
}

function issueBody() {
  const f = $('#issue');
  const p = f.product.value;
  const body = { product: p };
  const shown = (name) => !f.elements[name].hidden;
  if (f.account_id.value.trim()) body.account_id = f.account_id.value.trim();
  if (f.plan.value.trim()) body.plan = f.plan.value.trim();
  if (p === 'dt') {
    const mods = [...f.querySelectorAll('input[name=modules]:checked')].map((x) => x.value);
    if (mods.length) body.modules = mods;
    body.late_delivery = f.late_delivery.checked;
    if (f.ca_search_daily_limit.value !== '') body.ca_search_daily_limit = Number(f.ca_search_daily_limit.value);
  }
  for (const n of ['max_handles', 'max_tweets', 'max_wallets']) {
    if (shown(n) && f[n].value !== '') body[n] = Number(f[n].value);
  }
  if (f.expires_at.value) body.expires_at = new Date(f.expires_at.value).toISOString().replace(/\.\d+Z$/, 'Z');
  return body;
}

$('#issue').addEventListener('submit', async (e) => {
  e.preventDefault();
  const msg = $('#issue-msg');
  say(msg, '');
  let d;
  try {
    d = await admin('POST', '/admin/v1/keys', issueBody());
  } catch (err) {
    if (err.status === 401) return signOut('The admin token is no longer accepted.');
    return say(msg, err.message, 'error');
  }
  const box = $('#issued');
  const done = h('button', { type: 'button', class: 'primary' }, 'Done');
  fill(box, h('strong', {}, `New ${d.product} key for ${d.account_id} (plan ${d.plan}): shown this once.`),
    h('code', { id: 'issued-key' }, d.key), h('div', { class: 'row' }, copyButton(d.key, 'Copy key'), done));
  box.hidden = false;
  done.addEventListener('click', () => { box.replaceChildren(); box.hidden = true; });
  $('#issue').reset();
  productChanged();
  refreshAccounts(true);
});

$('#f-product').addEventListener('change', productChanged);
$('#accounts-filter').addEventListener('input', renderAccounts);
$('#signin').addEventListener('submit', async (e) => {
  e.preventDefault();
  const input = $('#admin_token');
  const problem = await signIn(input.value.trim());
  input.value = '';
  if (problem) say($('#signin-msg'), problem, 'error');
});
$('#signout').addEventListener('click', () => signOut(''));

// Plan lists for the inline plan editors.
for (const [p, list] of Object.entries(plans)) {
  document.body.append(h('datalist', { id: 'plans-' + p }, list.map((x) => h('option', { value: x }))));
}
productChanged();
if (token) signIn(token).then((problem) => { if (problem) signOut(problem); });
else signOut('');
