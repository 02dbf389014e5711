// api.js: the one way the pages call the server's JSON APIs. Answers come
// in spec 1's envelope ({ok, data} or {ok:false, error, code, hint,
// retry_after}); a failure becomes an APIError whose message is the
// server's own words, fit to show as they are.

export class APIError extends Error {
  constructor(status, code, message, hint) {
    super(message);
    this.status = status; // 0: the server could not be reached
    this.code = code;
    this.hint = hint || '';
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// call sends one request. body (an object) goes as JSON; token, when set,
// as the Authorization bearer (the console's admin token; the dashboard
// relies on its HttpOnly session cookie instead). A 429 is waited out and
// retried twice: the server did nothing with it.
export async function call(method, path, { body, token } = {}) {
  const headers = {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (token) headers.Authorization = 'Bearer ' + token;
  for (let attempt = 0; ; attempt++) {
    let res;
    try {
      res = await fetch(path, {
        method, headers, credentials: 'same-origin', cache: 'no-store',
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch {
      throw new APIError(0, 'network', 'The server cannot be reached right now.');
    }
    const text = await res.text();
    let env = null;
    try { env = JSON.parse(text); } catch { /* a plain-text answer */ }
    if (res.ok && env && env.ok) return env.data;
    if (res.status === 429 && attempt < 2) {
      const wait = Number(res.headers.get('Retry-After')) || (env && env.retry_after) || 1;
      await sleep(Math.min(wait, 5) * 1000);
      continue;
    }
    const msg = (env && env.error) || text.trim() || res.statusText || 'request failed';
    throw new APIError(res.status, (env && env.code) || '', msg, env && env.hint);
  }
}

// wsURL is the WebSocket address of a path on this server.
export function wsURL(path) {
  return (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + path;
}
