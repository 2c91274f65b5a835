// The API client: bearer tokens from local storage (the spec's two keys), silent refresh of an expired
// access token, and errors as ApiError. Requests go to this origin only, to paths this code builds: a URL
// taken from a response (download_url, status_url) is never given the token. Tokens travel only in the
// Authorization header and request bodies, never in a URL.

export const ACCESS_KEY = 'svc_access_token';
export const REFRESH_KEY = 'svc_refresh_token';

/** Refresh this long before the access token's expiry, so a request is not sent with a dying token. */
const EXPIRY_MARGIN_MS = 30_000;

export class ApiError extends Error {
  /**
   * @param {number} status HTTP status, 0 when the service could not be reached
   * @param {string} code the API's error code (or 'network', 'session_ended', 'bad_response')
   * @param {string} message the API's message
   * @param {{ retryAfter?: number }} [extra]
   */
  constructor(status, code, message, extra = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.retryAfter = extra.retryAfter;
  }
}

/** The session cannot continue: no tokens, or the refresh token was refused. The user must sign in. */
export class SessionEndedError extends ApiError {
  constructor(message = 'your session has ended') {
    super(401, 'session_ended', message);
    this.name = 'SessionEndedError';
  }
}

// Offset between the server's clock and ours, learned from the `iat` of tokens this tab received, so a
// wrong local clock does not make every token look expired (or never expired).
let clockSkewMs = 0;

function decodeClaims(token) {
  try {
    const part = token.split('.')[1];
    const json = atob(part.replace(/-/g, '+').replace(/_/g, '/'));
    const claims = JSON.parse(json);
    return typeof claims === 'object' && claims !== null ? claims : null;
  } catch {
    return null;
  }
}

/** The user id (`sub`) of the stored access token, or of the refresh token when there is no access token. */
export function tokenSubject() {
  const t = localStorage.getItem(ACCESS_KEY) ?? localStorage.getItem(REFRESH_KEY);
  const sub = t ? decodeClaims(t)?.sub : undefined;
  return typeof sub === 'string' ? sub : null;
}

function expiresSoon(token) {
  const exp = decodeClaims(token)?.exp;
  if (typeof exp !== 'number') return false; // let the server judge it
  return exp * 1000 - (Date.now() + clockSkewMs) < EXPIRY_MARGIN_MS;
}

export const tokens = {
  get access() {
    return localStorage.getItem(ACCESS_KEY);
  },
  get refresh() {
    return localStorage.getItem(REFRESH_KEY);
  },
  get present() {
    return Boolean(localStorage.getItem(ACCESS_KEY) || localStorage.getItem(REFRESH_KEY));
  },
  /** Stores a token pair from /auth/register, /auth/login or /auth/refresh. */
  store(pair) {
    if (typeof pair?.access_token !== 'string' || typeof pair?.refresh_token !== 'string') {
      throw new ApiError(0, 'bad_response', 'the service answered without tokens');
    }
    const iat = decodeClaims(pair.access_token)?.iat;
    if (typeof iat === 'number') clockSkewMs = iat * 1000 - Date.now();
    localStorage.setItem(ACCESS_KEY, pair.access_token);
    localStorage.setItem(REFRESH_KEY, pair.refresh_token);
  },
  clear() {
    localStorage.removeItem(ACCESS_KEY);
    localStorage.removeItem(REFRESH_KEY);
  },
};

function retryAfterOf(headers) {
  const raw = headers.get('Retry-After');
  const n = raw === null ? NaN : Number(raw);
  return Number.isFinite(n) ? n : undefined;
}

/** Reads a response's body: JSON when it is JSON, a Blob when asked for, nothing for 204. */
async function readBody(res, as) {
  if (res.status === 204) return null;
  if (as === 'blob' && res.ok) return res.blob();
  const type = res.headers.get('Content-Type') ?? '';
  if (type.includes('application/json')) {
    try {
      return await res.json();
    } catch {
      return null;
    }
  }
  return null;
}

function errorFrom(res, body) {
  const e = body && typeof body === 'object' ? body.error : null;
  const code = typeof e?.code === 'string' ? e.code : `http_${res.status}`;
  const message = typeof e?.message === 'string' ? e.message : `the service answered ${res.status}`;
  return new ApiError(res.status, code, message, { retryAfter: retryAfterOf(res.headers) });
}

/**
 * One HTTP exchange through fetch, or through XMLHttpRequest when upload progress is wanted (fetch
 * cannot report it). Resolves with a Response-like { status, ok, headers, body }.
 */
async function exchange(method, path, { json, form, headers = {}, signal, as, onUploadProgress } = {}, access) {
  const h = new Headers(headers);
  if (access) h.set('Authorization', `Bearer ${access}`);
  let body;
  if (json !== undefined) {
    h.set('Content-Type', 'application/json');
    body = JSON.stringify(json);
  } else if (form !== undefined) {
    body = form;
  }
  if (onUploadProgress && body !== undefined) return exchangeXhr(method, path, h, body, signal, onUploadProgress, as);
  let res;
  try {
    res = await fetch(path, { method, headers: h, body, signal, credentials: 'same-origin', cache: 'no-store' });
  } catch (err) {
    if (signal?.aborted) throw err;
    throw new ApiError(0, 'network', 'the service could not be reached');
  }
  const data = await readBody(res, as);
  return { status: res.status, ok: res.ok, headers: res.headers, body: data };
}

function exchangeXhr(method, path, headers, body, signal, onUploadProgress, as) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(method, path);
    headers.forEach((value, name) => xhr.setRequestHeader(name, value));
    xhr.responseType = as === 'blob' ? 'blob' : 'text';
    xhr.upload.addEventListener('progress', (e) => {
      if (e.lengthComputable) onUploadProgress(e.loaded / e.total);
    });
    const abort = () => xhr.abort();
    signal?.addEventListener('abort', abort, { once: true });
    xhr.addEventListener('load', () => {
      signal?.removeEventListener('abort', abort);
      const respHeaders = new Headers();
      for (const line of xhr.getAllResponseHeaders().trim().split(/[\r\n]+/)) {
        const at = line.indexOf(':');
        if (at > 0) respHeaders.append(line.slice(0, at).trim(), line.slice(at + 1).trim());
      }
      let data = null;
      if (as === 'blob' && xhr.status < 300) data = xhr.response;
      else if ((respHeaders.get('Content-Type') ?? '').includes('application/json')) {
        try {
          data = JSON.parse(xhr.responseText);
        } catch {
          data = null;
        }
      }
      resolve({ status: xhr.status, ok: xhr.status >= 200 && xhr.status < 300, headers: respHeaders, body: data });
    });
    xhr.addEventListener('error', () => reject(new ApiError(0, 'network', 'the service could not be reached')));
    xhr.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
    xhr.send(body);
  });
}

// --- Refresh: one at a time in this tab, and (where the Web Locks API exists) one at a time across tabs.
// Refresh tokens are single use and reusing one signs the whole family out, so two refreshes with the same
// token must never race.

let refreshing = null;

async function refreshOnce(staleAccess) {
  const current = tokens.access;
  // Another tab (or an earlier waiter here) already refreshed while this one waited.
  if (current && current !== staleAccess && !expiresSoon(current)) return current;
  const refresh = tokens.refresh;
  if (!refresh) throw new SessionEndedError();
  const res = await exchange('POST', '/auth/refresh', { json: { refresh_token: refresh } });
  if (res.ok) {
    tokens.store(res.body);
    return tokens.access;
  }
  if (res.status === 401 || res.status === 400) {
    // Rotated by another tab that did not take the lock (no Web Locks): its new pair is in storage.
    if (tokens.refresh !== refresh && tokens.access) return tokens.access;
    tokens.clear();
    throw new SessionEndedError();
  }
  throw errorFrom(res, res.body); // rate limited or unavailable: keep the tokens, report the problem
}

/** Resolves once local storage's `key` no longer holds `from` (a write by another tab arrived), or after ms. */
function storageChange(key, from, ms) {
  if (localStorage.getItem(key) !== from) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      window.removeEventListener('storage', onStorage);
      resolve();
    };
    const onStorage = () => {
      if (localStorage.getItem(key) !== from) done();
    };
    const timer = setTimeout(done, ms);
    window.addEventListener('storage', onStorage);
  });
}

const REFRESH_LOCK = 'svc-token-refresh';

function refreshTokens(staleAccess) {
  if (!refreshing) {
    const seenRefresh = tokens.refresh;
    const locks = navigator.locks;
    const task = locks?.request
      ? locks.request(REFRESH_LOCK, { ifAvailable: true }, (lock) =>
          lock
            ? refreshOnce(staleAccess)
            : // Another tab is refreshing. Local storage reaches other tabs asynchronously, so after its turn
              // wait (briefly) for its new pair to arrive here rather than present the used refresh token.
              locks.request(REFRESH_LOCK, async () => {
                await storageChange(REFRESH_KEY, seenRefresh, 1500);
                return refreshOnce(staleAccess);
              }),
        )
      : refreshOnce(staleAccess);
    refreshing = task.finally(() => {
      refreshing = null;
    });
  }
  return refreshing;
}

let sessionEndedHandler = () => {};
/** Called once a request finds that the user must sign in again. */
export function onSessionEnded(handler) {
  sessionEndedHandler = handler;
}

function endSession(err) {
  tokens.clear();
  sessionEndedHandler(err);
  return err;
}

async function currentAccess() {
  const access = tokens.access;
  if (access && !expiresSoon(access)) return access;
  if (!access && !tokens.refresh) throw new SessionEndedError('you are not signed in');
  return refreshTokens(access);
}

/**
 * A valid access token (refreshed when it is about to expire), for requests this module does not send itself: the
 * resumable uploads tus-js-client makes. A session that cannot go on sends the user to sign in, as request() does.
 */
export async function accessToken() {
  try {
    return await currentAccess();
  } catch (err) {
    if (err instanceof SessionEndedError) throw endSession(err);
    throw err;
  }
}

const TOKEN_PROBLEMS = new Set(['token_expired', 'invalid_token', 'unauthenticated']);

/** An authenticated request: refreshes before or after (once) as needed; throws ApiError. */
export async function request(method, path, options = {}) {
  try {
    let access = await currentAccess();
    let res = await exchange(method, path, options, access);
    if (res.status === 401 && TOKEN_PROBLEMS.has(res.body?.error?.code)) {
      access = await refreshTokens(access);
      res = await exchange(method, path, options, access);
    }
    if (res.status === 401) throw new SessionEndedError();
    if (!res.ok) throw errorFrom(res, res.body);
    return options.as === 'blob' ? { blob: res.body, headers: res.headers } : res.body;
  } catch (err) {
    if (err instanceof SessionEndedError) throw endSession(err);
    throw err;
  }
}

/** A request without credentials (sign in, register). */
export async function publicRequest(method, path, options = {}) {
  const res = await exchange(method, path, options, null);
  if (!res.ok) throw errorFrom(res, res.body);
  return res.body;
}

export const api = {
  get: (path, options) => request('GET', path, options),
  post: (path, json, options = {}) => request('POST', path, { ...options, json }),
  put: (path, json, options = {}) => request('PUT', path, { ...options, json }),
  patch: (path, json, options = {}) => request('PATCH', path, { ...options, json }),
  delete: (path, options) => request('DELETE', path, options),
  /** Multipart upload of one file part named `file`. */
  postFile: (path, file, { parts = {}, ...options } = {}) => {
    const form = new FormData();
    form.append('file', file, file.name);
    // Further file parts (verify's optional sidecar `manifest`).
    for (const [name, part] of Object.entries(parts)) if (part) form.append(name, part, part.name);
    return request('POST', path, { ...options, form });
  },
  /** Downloads a binary with the bearer header; resolves with the Blob and the file name the server gave. */
  async download(path, options = {}) {
    const { blob, headers } = await request('GET', path, { ...options, as: 'blob' });
    return { blob, filename: filenameFrom(headers.get('Content-Disposition')) };
  },
};

function filenameFrom(disposition) {
  const m = /filename="([^"]*)"/i.exec(disposition ?? '');
  const name = (m?.[1] ?? '').replace(/[\\/:*?<>|\u0000-\u001f]/g, '_').trim();
  return name || 'signed-image';
}

/** Path segment for an id from a response (ids are UUIDs; encoding keeps anything else harmless). */
export const seg = (id) => encodeURIComponent(String(id));
