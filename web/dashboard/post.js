// post.js: how one feed entry looks: a post (from /v1/feed, /v1/ws or the
// B2B realtime socket) or another B2B event (follow, profile change,
// deletion).
import { h, ago, when, safeImage, copyButton } from '../shared/dom.js';

// Contract addresses as the server detects them: EVM (0x and 40 hex
// digits) and Solana (32 to 44 base58 characters with a digit and a letter).
const evm = /\b0x[0-9a-fA-F]{40}\b/g;
const sol = /\b[1-9A-HJ-NP-Za-km-z]{32,44}\b/g;

export function contracts(text) {
  const found = new Set();
  for (const m of (text || '').matchAll(evm)) found.add(m[0]);
  for (const m of (text || '').matchAll(sol)) {
    if (/\d/.test(m[0]) && /[A-Za-z]/.test(m[0])) found.add(m[0]);
  }
  return [...found];
}

// fromAlert reads a Tweet alert (feed item or /v1/ws frame).
export function fromAlert(a) {
  return {
    id: a.tweet_id, handle: a.handle, text: a.text, url: a.url,
    images: a.image_urls && a.image_urls.length ? a.image_urls : (a.image_url ? [a.image_url] : []),
    created: a.created_at, reply: a.is_reply, quote: a.is_quote, sensitive: a.possibly_sensitive,
  };
}

// fromTweet reads spec 2's tweet payload (a B2B post event's data).
export function fromTweet(t, handle) {
  const author = t.author || {};
  return {
    id: t.id, handle: author.handle || handle, name: author.name, avatar: author.avatar, text: t.text,
    url: author.handle ? `https://x.com/${author.handle}/status/${t.id}` : '',
    images: (t.media || []).map((m) => m.url), created: t.created_at,
    reply: t.type === 'reply', quote: t.type === 'quote', repost: t.type === 'repost', sensitive: t.possibly_sensitive,
  };
}

function avatar(p) {
  const src = safeImage(p.avatar);
  if (src) {
    const img = h('img', { class: 'avatar', src, alt: '', loading: 'lazy', referrerpolicy: 'no-referrer' });
    img.addEventListener('error', () => img.replaceWith(letter(p.handle)));
    return img;
  }
  return letter(p.handle);
}

function letter(handle) {
  return h('span', { class: 'avatar letter', 'aria-hidden': 'true' }, (handle || '?').slice(0, 1).toUpperCase());
}

function stamp(ms) {
  return h('time', { datetime: new Date(ms).toISOString(), title: when(ms) }, ago(ms));
}

// renderPost is one post entry. label names what happened (for updates).
export function renderPost(p, label = '') {
  const images = p.images.map(safeImage).filter(Boolean).slice(0, 4);
  const cas = contracts(p.text);
  const tags = [p.reply && 'reply', p.quote && 'quote', p.repost && 'repost', p.sensitive && 'sensitive', label].filter(Boolean);
  const li = h('li', { 'data-search': `${p.handle} ${p.name || ''} ${p.text || ''}`.toLowerCase() },
    avatar(p),
    h('article', { 'aria-label': `Post by @${p.handle}` },
      h('div', { class: 'post-head' },
        h('span', { class: 'handle' }, '@' + p.handle),
        p.name ? h('span', { class: 'muted' }, p.name) : null,
        p.url ? h('a', { href: p.url, target: '_blank', rel: 'noopener noreferrer' }, stamp(p.created)) : stamp(p.created),
        tags.map((t) => h('span', { class: 'chip' }, t))),
      h('p', { class: 'post-text' }, p.text || ''),
      cas.length ? h('div', { class: 'cas', 'aria-label': 'Contract addresses' },
        cas.map((c) => h('span', { class: 'ca' }, h('span', { class: 'event-kind' }, 'CA'), h('code', {}, c), copyButton(c)))) : null,
      images.length ? h('div', { class: 'post-media' }, images.map((src) => {
        const img = h('img', { src, alt: `Image posted by @${p.handle}`, loading: 'lazy', referrerpolicy: 'no-referrer' });
        img.addEventListener('error', () => { img.hidden = true; });
        return img;
      })) : null));
  return li;
}

// renderEvent is a B2B event other than a post: follows, followers,
// profile changes and deletions (spec 2 "Events").
export function renderEvent(ev) {
  const d = ev.data || {};
  const who = '@' + ((ev.task_info && ev.task_info.handle) || '?');
  let kind = ev.event.replace(/^social\./, '');
  let line;
  switch (ev.event) {
    case 'social.following.new':
      line = `${who} followed @${d.handle || d.id}`; kind = 'follow'; break;
    case 'social.following.removed':
      line = `${who} unfollowed @${d.handle || d.id}`; kind = 'unfollow'; break;
    case 'social.follower.new':
      line = `@${d.handle || d.id} followed ${who}`; kind = 'new follower'; break;
    case 'social.profile.update':
      line = `${who} changed ${d.field}: “${d.prev}” → “${d.updated}”`; kind = 'profile'; break;
    case 'social.tweet.deleted':
      line = `${who} deleted a post` + (d.text ? `: “${d.text}”` : (d.tweet_id ? ` (${d.tweet_id})` : ''));
      kind = 'deleted'; break;
    default:
      line = `${who}: ${ev.event}`;
  }
  const at = ev.event_time || Date.now();
  return h('li', { 'data-search': `${who} ${line}`.toLowerCase() },
    letter(who.slice(1)),
    h('article', { 'aria-label': kind },
      h('div', { class: 'post-head' }, h('span', { class: 'event-kind' }, kind), stamp(at)),
      h('p', { class: 'event-line' }, line)));
}
