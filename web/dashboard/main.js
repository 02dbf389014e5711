// main.js: the dashboard's shell. It signs in (an API key once, or
// Telegram) and from then on relies on the HttpOnly xg_session cookie; it
// checks the session on load, every 30 s, when the page comes back into
// view and whenever the server refuses it, and falls back to the sign-in
// form when it no longer stands. A dt_ key typed in is kept in this
// module's memory only (never storage, never the DOM) for the B2B realtime
// socket's LOGIN, until sign-out, a reload, or the server refusing it.
import { call } from '../shared/api.js';
import { $, say } from '../shared/dom.js';
import { Feed } from './feed.js';
import { Accounts } from './accounts.js';
import { loadSettings } from './settings.js';
import { Webhooks } from './webhooks.js';
import { loadPlan } from './plan.js';

const recheckEvery = 30000; // ms: the heartbeat interval of every socket

let session = null; // {product, tier, expires_at, via}
let dtKey = '';
let recheck = 0;

const live = $('#live');
const feed = new Feed({ onState: showState, onTrouble: () => checkSession() });
const accounts = new Accounts({ onChange: (hs) => feed.setHandles(hs), onAuthLost: () => checkSession() });
const webhooks = new Webhooks({ onAuthLost: () => checkSession() });

function showState(state, detail) {
  live.dataset.state = state;
  live.textContent = {
    live: 'Live',
    connecting: 'Connecting…',
    offline: `Offline, retrying in ${detail} s`,
    stopped: 'Not connected',
  }[state];
}

// checkSession asks the server who the cookie signs in; it returns whether
// one is signed in, and falls back to the form when the session ended.
async function checkSession(message) {
  try {
    const s = await call('GET', '/v1/auth/session');
    if (!session) await enter(s);
    return true;
  } catch (e) {
    if (e.status === 401) {
      // Once the form shows, a later check (a socket closing with the key,
      // a click) must not wipe the message that says why.
      if (session) leave('Your session ended: ' + e.message.replace(/: sign in again$/, '') + '. Sign in again.');
      else if (message || $('#signin-view').hidden) leave(message);
      return false;
    }
    return !!session; // offline or a server hiccup: keep what is shown
  }
}

async function enter(s) {
  session = s;
  $('#signin-view').hidden = true;
  $('#app').hidden = false;
  live.hidden = false;
  $('#signout').hidden = false;
  const who = $('#who');
  who.hidden = false;
  who.textContent = `${s.product === 'dt' ? 'B2B' : 'Tweet Alerts'} · ${s.tier}`;
  for (const a of document.querySelectorAll('nav.tabs a[data-product]')) a.hidden = a.dataset.product !== s.product;
  $('#b2b-key').hidden = !(s.product === 'dt' && !dtKey);
  accounts.setProduct(s.product);
  clearInterval(recheck);
  recheck = setInterval(() => checkSession(), recheckEvery);
  let handles = [];
  try {
    handles = await accounts.load();
  } catch (e) {
    if (e.status === 401) return void checkSession();
  }
  show(location.hash.slice(1) || 'feed');
  await feed.start(s.product, handles, dtKey, s.tier);
}

function leave(message) {
  session = null;
  dtKey = '';
  feed.forgetKey();
  feed.stop();
  clearInterval(recheck);
  $('#app').hidden = true;
  live.hidden = true;
  $('#signout').hidden = true;
  $('#who').hidden = true;
  $('#signin-view').hidden = false;
  const msg = $('#signin-msg');
  say(msg, message || '', message ? 'error' : '');
  $('#api_key').focus();
}

// show displays one view and loads what it needs.
function show(view) {
  const links = [...document.querySelectorAll('nav.tabs a')].filter((a) => !a.hidden);
  if (!links.some((a) => a.dataset.view === view)) view = 'feed';
  for (const a of links) {
    if (a.dataset.view === view) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  }
  for (const v of ['feed', 'accounts', 'settings', 'webhooks', 'plan']) $('#' + v + '-view').hidden = v !== view;
  const lost = () => checkSession();
  if (view === 'accounts') accounts.refresh();
  if (view === 'settings') loadSettings(lost);
  if (view === 'webhooks') webhooks.load();
  if (view === 'plan') loadPlan(session, lost);
}

window.addEventListener('hashchange', () => { if (session) show(location.hash.slice(1)); });
document.addEventListener('visibilitychange', () => { if (session && !document.hidden) checkSession(); });

$('#signin').addEventListener('submit', async (e) => {
  e.preventDefault();
  const input = $('#api_key');
  const key = input.value.trim();
  const msg = $('#signin-msg');
  say(msg, '');
  try {
    await call('POST', '/v1/auth/apikey', { body: { api_key: key } });
  } catch (err) {
    say(msg, err.status === 401 ? 'This key was not accepted: ' + err.message : 'Sign-in failed: ' + err.message, 'error');
    input.select();
    return;
  } finally {
    input.value = '';
  }
  dtKey = key.startsWith('dt_') ? key : '';
  await checkSession();
});

$('#b2b-key').addEventListener('submit', async (e) => {
  e.preventDefault();
  const input = $('#b2b-key-input');
  dtKey = input.value.trim();
  input.value = '';
  $('#b2b-key').hidden = true;
  await feed.start(session.product, feed.handles, dtKey, session.tier);
});

$('#signout').addEventListener('click', async () => {
  try { await call('POST', '/v1/auth/logout'); } catch { /* the cookie expires on its own */ }
  leave('');
});

// Telegram: only when the server has a bot (the meta tags are there then).
const botID = document.querySelector('meta[name="alertd-telegram-bot-id"]');
if (botID) {
  $('#telegram').hidden = false;
  const s = document.createElement('script');
  s.src = document.querySelector('meta[name="alertd-telegram-script"]').content;
  s.async = true;
  document.head.append(s);
  $('#telegram-button').addEventListener('click', () => {
    if (!window.Telegram || !window.Telegram.Login) {
      say($('#signin-msg'), 'The Telegram widget could not be loaded.', 'error');
      return;
    }
    window.Telegram.Login.auth({ bot_id: botID.content, request_access: 'write' }, async (user) => {
      if (!user) return;
      try {
        await call('POST', '/v1/auth/telegram', { body: user });
        await checkSession();
      } catch (err) {
        say($('#signin-msg'), 'Telegram sign-in failed: ' + err.message + (err.hint ? ' ' + err.hint : ''), 'error');
      }
    });
  });
}

checkSession().then((ok) => { if (!ok && !session) leave(''); });
