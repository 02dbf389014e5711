// chart.js: a small line chart in SVG, drawn by hand (no library, nothing
// from another host): per-second samples, one polyline per series.
const ns = 'http://www.w3.org/2000/svg';

function el(tag, attrs, text) {
  const e = document.createElementNS(ns, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

// draw replaces box's content with a chart of samples (oldest first) for
// series [{key, label}]; windowMs is the span of the x axis.
export function draw(box, samples, series, windowMs) {
  const W = 800, H = 220, L = 44, R = 8, T = 10, B = 22;
  const now = samples.length ? samples[samples.length - 1].t : Date.now();
  let top = 1;
  for (const s of samples) for (const { key } of series) top = Math.max(top, s[key]);
  top = nice(top);
  const x = (t) => L + (W - L - R) * (1 - (now - t) / windowMs);
  const y = (v) => T + (H - T - B) * (1 - v / top);
  const latest = samples.length ? samples[samples.length - 1] : null;
  const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', preserveAspectRatio: 'none',
    'aria-label': 'Per-second rates over the last ten minutes' + (latest
      ? ': now ' + series.map(({ key, label }) => `${latest[key]} ${label}`).join(', ') : ': no samples yet') });
  for (const f of [0, 0.5, 1]) {
    svg.append(el('line', { class: 'axis', x1: L, x2: W - R, y1: y(top * f), y2: y(top * f) }));
    svg.append(el('text', { x: L - 6, y: y(top * f) + 4, 'text-anchor': 'end' }, fmt(top * f)));
  }
  const span = windowMs >= 120000 ? `-${Math.round(windowMs / 60000)} min` : `-${Math.round(windowMs / 1000)} s`;
  svg.append(el('text', { x: L, y: H - 6 }, span));
  svg.append(el('text', { x: W - R, y: H - 6, 'text-anchor': 'end' }, 'now'));
  series.forEach(({ key }, i) => {
    const pts = samples.filter((s) => now - s.t <= windowMs).map((s) => `${x(s.t).toFixed(1)},${y(s[key]).toFixed(1)}`);
    if (pts.length) svg.append(el('polyline', { class: 's' + i, points: pts.join(' ') }));
  });
  box.replaceChildren(svg);
}

// nice rounds a maximum up to 1, 2 or 5 times a power of ten.
function nice(v) {
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 5, 10]) if (v <= m * p) return m * p;
  return 10 * p;
}

function fmt(v) {
  return v >= 1000 ? (v / 1000).toFixed(v >= 10000 ? 0 : 1) + 'k' : String(Math.round(v));
}
