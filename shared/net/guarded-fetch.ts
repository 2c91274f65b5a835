import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { ServiceError } from '../errors.js';
import { isPublicAddress } from './addresses.js';

/**
 * Outbound requests to URLs users give (webhook endpoints, remote manifests), guarded against server-side request
 * forgery: https only, and only public addresses, judged after DNS resolution on the very addresses the socket then
 * connects to (the check runs inside the connection's lookup, so a name cannot resolve once to a public address for
 * the check and again to a private one for the connection). Each redirect is checked the same way.
 */
export interface GuardedFetchOptions {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Let private, loopback and link-local addresses through (development and tests only). */
  allowPrivate: boolean;
  /** Let plain http through (development and tests only). */
  allowHttp: boolean;
  /**
   * The service's own origin (BASE_URL's scheme, host and port): a URL of exactly that origin, the first or a
   * redirect's, is the service's and not a user's, so neither the scheme nor the address rules apply to it.
   */
  ownOrigin?: string;
  /** Redirects followed, each re-checked; 0: a redirect is answered as it is, not followed. */
  maxRedirects: number;
  /** For the whole exchange, every redirect included. */
  timeoutMs: number;
  /** The largest response body read; a larger one fails the fetch. */
  maxBytes: number;
  /** Extra TLS roots (a test's local HTTPS server). */
  ca?: string | string[];
  /** Called before each request, the first and every redirect's; what it throws ends the fetch (a rate limit). */
  beforeRequest?: (url: URL) => void;
}

export interface GuardedResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The URL that answered, after redirects. */
  url: string;
}

/** The URL may not be fetched: its scheme, its credentials, or an address it names or resolves to. */
export class UrlNotAllowedError extends ServiceError {
  constructor(message: string) {
    super('unprocessable', 'url_not_allowed', message);
    this.name = 'UrlNotAllowedError';
  }
}

/** The URL's host name does not resolve (no such name, or no answer from DNS), so nothing could ever be sent to it. */
export class UrlNotResolvableError extends ServiceError {
  constructor(host: string, code: string | undefined, cause: unknown) {
    super('unprocessable', 'url_not_resolvable', `${host} does not resolve to an address (${code ?? 'lookup failed'}): check the name`, { cause });
    this.name = 'UrlNotResolvableError';
  }
}

export type FetchFailure = 'timeout' | 'too_large' | 'connect' | 'too_many_redirects';

/** The fetch was allowed but did not complete. */
export class FetchFailedError extends ServiceError {
  constructor(
    readonly reason: FetchFailure,
    message: string,
    cause?: unknown,
  ) {
    super('unavailable', 'fetch_failed', message, { cause });
    this.name = 'FetchFailedError';
  }
}

type Policy = Pick<GuardedFetchOptions, 'allowPrivate' | 'allowHttp' | 'ownOrigin'>;

const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** The rules for one URL: none of the scheme and address rules for the service's own origin. */
const rulesFor = (url: URL, policy: Policy): Policy => (policy.ownOrigin !== undefined && url.origin === policy.ownOrigin ? { allowPrivate: true, allowHttp: true } : policy);

/** The checks a URL must pass before any DNS lookup: scheme, no credentials, no private address literal. */
export function checkOutboundUrl(raw: string, policy: Policy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlNotAllowedError('not a valid absolute URL');
  }
  const rules = rulesFor(url, policy);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && rules.allowHttp)) {
    throw new UrlNotAllowedError(rules.allowHttp ? 'only http and https URLs are allowed' : 'only https URLs are allowed');
  }
  if (url.username || url.password) throw new UrlNotAllowedError('URLs with credentials are not allowed');
  const host = hostOf(url);
  if (isIP(host) && !rules.allowPrivate && !isPublicAddress(host)) throw new UrlNotAllowedError(`${host} is not a public address`);
  return url;
}

/**
 * Resolves a URL's host as the fetch would and checks every address (for refusing a URL when it is first given): a
 * name that resolves to no address (ENOTFOUND, EAI_AGAIN...) is refused too, as url_not_resolvable.
 */
export async function assertPublicUrl(raw: string, policy: Policy): Promise<URL> {
  const url = checkOutboundUrl(raw, policy);
  const host = hostOf(url);
  const rules = rulesFor(url, policy);
  if (isIP(host) || rules.allowPrivate) return url;
  await new Promise<void>((resolve, reject) =>
    guardedLookup(rules)(host, { all: true }, (err) => {
      if (!err) return resolve();
      reject(err instanceof ServiceError ? err : new UrlNotResolvableError(host, err.code, err));
    }),
  );
  return url;
}

/** A socket lookup that refuses a name when any address it resolves to is not public. */
function guardedLookup(policy: Policy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { family: options.family ?? 0, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      const refused = policy.allowPrivate ? undefined : addresses.find((a) => !isPublicAddress(a.address));
      if (refused) return callback(new UrlNotAllowedError(`${hostname} resolves to ${refused.address}, not a public address`), '', 0);
      if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Fetches a URL a user gave, under the guard; see GuardedFetchOptions. */
export async function guardedFetch(raw: string, options: GuardedFetchOptions): Promise<GuardedResponse> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  let url = checkOutboundUrl(raw, options);
  let method = options.method ?? 'GET';
  let body = options.body;
  for (let hop = 0; ; hop++) {
    options.beforeRequest?.(url);
    const res = await requestOnce(url, method, body, options, signal);
    const location = res.headers.location;
    if (!REDIRECTS.has(res.status) || !location || options.maxRedirects === 0) return res;
    if (hop >= options.maxRedirects) throw new FetchFailedError('too_many_redirects', `more than ${options.maxRedirects} redirects`);
    url = checkOutboundUrl(new URL(location, url).toString(), options);
    if (res.status === 303 || (method === 'POST' && res.status !== 307 && res.status !== 308)) {
      method = 'GET';
      body = undefined;
    }
  }
}

function requestOnce(url: URL, method: string, body: string | Uint8Array | undefined, options: GuardedFetchOptions, signal: AbortSignal): Promise<GuardedResponse> {
  return new Promise((resolve, reject) => {
    const transport = url.protocol === 'https:' ? https : http;
    const headers: Record<string, string> = { ...options.headers };
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    const req = transport.request(url, {
      method,
      headers,
      signal,
      lookup: guardedLookup(rulesFor(url, options)),
      agent: false,
      ...(url.protocol === 'https:' && options.ca ? { ca: options.ca } : {}),
    });
    const fail = (err: unknown) => {
      req.destroy();
      if (err instanceof ServiceError) return reject(err);
      if (signal.aborted) return reject(new FetchFailedError('timeout', `no complete answer within ${options.timeoutMs} ms`, err));
      const cause = err as NodeJS.ErrnoException & { cause?: unknown };
      if (cause?.cause instanceof ServiceError) return reject(cause.cause);
      reject(new FetchFailedError('connect', `could not fetch ${url.host}: ${cause?.code ?? cause?.message ?? 'failed'}`, err));
    };
    req.on('error', fail);
    req.on('response', (res: IncomingMessage) => {
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > options.maxBytes) {
        res.destroy();
        return fail(new FetchFailedError('too_large', `the answer is larger than ${options.maxBytes} bytes`));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxBytes) {
          res.destroy();
          fail(new FetchFailedError('too_large', `the answer is larger than ${options.maxBytes} bytes`));
        } else chunks.push(chunk);
      });
      res.on('error', fail);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), url: url.toString() }));
    });
    req.end(body);
  });
}
