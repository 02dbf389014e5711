// dom.js: small helpers to build the pages. Text from the server is always
// set as text (textContent), never parsed as HTML.

// h builds an element: h('button', {class: 'x', onclick: f}, 'Label', child).
// Attributes starting with "on" become listeners; true/false set or drop
// boolean attributes; null and undefined are skipped.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'value') el.value = v;
    else if (k === 'checked') el.checked = true;
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

// fill replaces an element's children.
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

export const $ = (sel, root = document) => root.querySelector(sel);

// when formats epoch ms (or an ISO string) as local date and time.
export function when(t) {
  if (t === null || t === undefined || t === '') return '—';
  const d = new Date(t);
  return isNaN(d) ? String(t) : d.toLocaleString();
}

// ago says how long ago epoch ms was, briefly.
export function ago(ms) {
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  if (s < 60) return s + ' s ago';
  if (s < 3600) return Math.floor(s / 60) + ' min ago';
  if (s < 86400) return Math.floor(s / 3600) + ' h ago';
  return new Date(ms).toLocaleDateString();
}

// bytes formats a size.
export function bytes(n) {
  if (n === null || n === undefined) return 'unknown';
  const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
  return (i ? n.toFixed(1) : n) + ' ' + u[i];
}

// safeImage returns url when the page may show it: https (the platform's
// images) or this server; anything else (http, data, javascript) is dropped.
export function safeImage(url) {
  if (typeof url !== 'string' || url === '') return null;
  try {
    const u = new URL(url, location.href);
    if (u.protocol === 'https:' || u.origin === location.origin) return u.href;
  } catch { /* not a URL */ }
  return null;
}

// copyButton copies text to the clipboard and says so.
export function copyButton(text, label = 'Copy') {
  const b = h('button', { type: 'button', class: 'small' }, label);
  b.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text);
      b.textContent = 'Copied';
    } catch {
      b.textContent = 'Select and copy';
    }
    setTimeout(() => { b.textContent = label; }, 1500);
  });
  return b;
}

// say puts a message in a live region (role=status or alert) so screen
// readers hear it; kind is '', 'ok' or 'error'.
export function say(el, msg, kind = '') {
  el.textContent = msg || '';
  el.dataset.kind = kind;
  el.hidden = !msg;
}
