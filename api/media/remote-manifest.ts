import { readFile } from 'node:fs/promises';
import type { RemoteManifestsConfig } from '../../shared/config.js';
import { FetchFailedError, guardedFetch, UrlNotAllowedError } from '../../shared/net/guarded-fetch.js';
import { ApiError } from '../errors.js';
import { FetchBudgets } from './fetch-budgets.js';

/** A remote manifest is fetched in the API process (the pool's tasks are CPU work); its bytes then go to the task. */
const TIMEOUT_MS = 10_000;
const MAX_REDIRECTS = 3;

export type RemoteManifestResult = { bytes: Uint8Array } | { error: string };

/** Remote manifests as one client's verification fetches them (RemoteManifests.forClient). */
export interface RemoteManifestSource {
  fetch(url: string): Promise<RemoteManifestResult>;
  /** A file to verify, fetched by URL (POST /v1/verify {url}): see RemoteManifests.fetchFile. */
  fetchFile(url: string, maxBytes: number): Promise<FetchedFile>;
}

/** A file fetched to be verified: its bytes, the URL that answered (after redirects) and its `Link` header. */
export interface FetchedFile {
  body: Buffer;
  url: string;
  link: string | undefined;
}

/** Thrown to a client whose own allowance ran out; another client sharing that fetch tries on its own account. */
class ClientAllowanceSpent extends Error {
  constructor(
    readonly client: string,
    readonly refusal: ApiError,
  ) {
    super(refusal.message);
  }
}

/**
 * Remote manifests, fetched through the outbound guard (https only, public addresses only after DNS resolution,
 * redirects re-checked, at most REMOTE_MANIFESTS_MAX_BYTES within 10 s; the service's own origin, BASE_URL's, is
 * exempt from the scheme and address rules), or why one was not: a failed fetch is part of the verdict
 * (manifest.inaccessible), never an error of the request.
 *
 * Anyone may send a file naming any URL, so the service must not become a way to hammer a third party's server:
 * a manifest fetched is kept (REMOTE_MANIFESTS_CACHE_SECONDS, at most REMOTE_MANIFESTS_CACHE_BYTES, least recently
 * used dropped first), requests for a URL already being fetched share that fetch, and at most
 * REMOTE_MANIFESTS_CONCURRENCY fetches run at once: beyond that a request is 503 remote_fetch_busy with Retry-After
 * (not an Invalid verdict: the file is not at fault). Each request a fetch makes, redirects included, counts against
 * the client address's REMOTE_MANIFESTS_PER_ADDRESS per minute (beyond, 429 remote_fetch_rate_limited) and the host's
 * REMOTE_MANIFESTS_PER_HOST (beyond, 503 remote_host_busy): fetch-budgets.ts. Failures are not kept: the next
 * request tries again.
 */
export class RemoteManifests {
  private readonly cache = new Map<string, { bytes: Uint8Array; until: number }>();
  private cachedBytes = 0;
  private readonly inflight = new Map<string, Promise<RemoteManifestResult>>();
  private readonly budgets: FetchBudgets;
  /** REMOTE_MANIFESTS_CA_FILE's roots, read once. */
  private ca: Promise<string> | undefined;

  constructor(
    private readonly settings: RemoteManifestsConfig,
    private readonly now: () => number = Date.now,
  ) {
    this.budgets = new FetchBudgets(settings, now);
  }

  /**
   * Remote manifests fetched on behalf of `client` (the request's address): every request a fetch makes, redirects
   * included, counts against its REMOTE_MANIFESTS_PER_ADDRESS and the host's REMOTE_MANIFESTS_PER_HOST (a manifest
   * kept, or a fetch another request already runs, costs nothing).
   */
  forClient(client: string): RemoteManifestSource {
    return { fetch: (url) => this.fetch(url, client), fetchFile: (url, maxBytes) => this.fetchFile(url, client, maxBytes) };
  }

  /**
   * A file a client asks to have verified by its URL, fetched as remote manifests are (the outbound guard, at most 3
   * redirects and 10 s, REMOTE_MANIFESTS_ALLOW_PRIVATE and REMOTE_MANIFESTS_CA_FILE, every request counted against the
   * client's and the host's budgets) but at most `maxBytes` (MAX_UPLOAD_BYTES) and never kept or shared: it is the
   * client's file. REMOTE_MANIFESTS=off fetches nothing. A URL the guard refuses, a failed fetch or an answer other than
   * 200 is the client's problem: 422.
   */
  private async fetchFile(url: string, client: string, maxBytes: number): Promise<FetchedFile> {
    if (!this.settings.enabled) throw new ApiError('unprocessable', 'url_fetch_disabled', 'files are not fetched by URL here (REMOTE_MANIFESTS=off): send the file itself');
    const { allowPrivate, caFile } = this.settings;
    if (caFile) this.ca ??= readFile(caFile, 'utf8');
    let res;
    try {
      res = await guardedFetch(url, {
        allowPrivate,
        allowHttp: false,
        maxRedirects: MAX_REDIRECTS,
        timeoutMs: TIMEOUT_MS,
        maxBytes,
        ...(this.ca ? { ca: await this.ca } : {}),
        beforeRequest: (hop) => this.budgets.take(client, hop.hostname),
      });
    } catch (err) {
      if (err instanceof FetchFailedError) throw new ApiError('unprocessable', 'url_fetch_failed', `the file could not be fetched: ${err.message}`);
      throw err;
    }
    if (res.status !== 200) throw new ApiError('unprocessable', 'url_fetch_failed', `the file could not be fetched: the server answered ${res.status}`);
    const link = res.headers.link;
    return { body: res.body, url: res.url, link: Array.isArray(link) ? link.join(', ') : link };
  }

  private async fetch(url: string, client: string): Promise<RemoteManifestResult> {
    if (!this.settings.enabled) return { error: 'remote manifests are not fetched here (REMOTE_MANIFESTS=off)' };
    const cached = this.cached(url);
    if (cached) return { bytes: cached };
    const pending = this.inflight.get(url);
    if (pending) {
      return pending.catch((err: unknown) => {
        if (!(err instanceof ClientAllowanceSpent)) throw err;
        if (err.client === client) throw err.refusal;
        return this.fetch(url, client);
      });
    }
    if (this.inflight.size >= this.settings.concurrency) {
      throw new ApiError('unavailable', 'remote_fetch_busy', `${this.settings.concurrency} remote manifests are being fetched (REMOTE_MANIFESTS_CONCURRENCY); try again shortly`, {
        retryAfterSeconds: 2,
      });
    }
    const fetching = this.download(url, client).finally(() => this.inflight.delete(url));
    this.inflight.set(url, fetching);
    try {
      const result = await fetching;
      if ('bytes' in result) this.keep(url, result.bytes);
      return result;
    } catch (err) {
      throw err instanceof ClientAllowanceSpent ? err.refusal : err;
    }
  }

  /** One request's place in the budgets; a client out of its own allowance is told apart (see fetch). */
  private take(client: string, host: string): void {
    try {
      this.budgets.take(client, host);
    } catch (err) {
      if (err instanceof ApiError && err.kind === 'rate_limited') throw new ClientAllowanceSpent(client, err);
      throw err;
    }
  }

  private cached(url: string): Uint8Array | undefined {
    const hit = this.cache.get(url);
    if (!hit) return undefined;
    this.cache.delete(url);
    if (hit.until <= this.now()) {
      this.cachedBytes -= hit.bytes.length;
      return undefined;
    }
    this.cache.set(url, hit); // most recently used last
    return hit.bytes;
  }

  private keep(url: string, bytes: Uint8Array): void {
    const { cacheSeconds, cacheBytes } = this.settings;
    if (cacheSeconds === 0 || bytes.length > cacheBytes || this.cache.has(url)) return;
    for (const [oldest, entry] of this.cache) {
      if (this.cachedBytes + bytes.length <= cacheBytes) break;
      this.cache.delete(oldest);
      this.cachedBytes -= entry.bytes.length;
    }
    this.cache.set(url, { bytes, until: this.now() + cacheSeconds * 1000 });
    this.cachedBytes += bytes.length;
  }

  private async download(url: string, client: string): Promise<RemoteManifestResult> {
    const { allowPrivate, caFile, maxBytes, ownOrigin } = this.settings;
    if (caFile) this.ca ??= readFile(caFile, 'utf8');
    try {
      const res = await guardedFetch(url, {
        allowPrivate,
        allowHttp: false,
        // A store under BASE_URL is one of the service's own (its repository), reached even on http://localhost.
        ownOrigin,
        maxRedirects: MAX_REDIRECTS,
        timeoutMs: TIMEOUT_MS,
        maxBytes,
        headers: { accept: 'application/c2pa' },
        ...(this.ca ? { ca: await this.ca } : {}),
        beforeRequest: (hop) => this.take(client, hop.hostname),
      });
      if (res.status !== 200) return { error: `the server answered ${res.status}` };
      return { bytes: new Uint8Array(res.body) };
    } catch (err) {
      if (err instanceof UrlNotAllowedError || err instanceof FetchFailedError) return { error: err.message };
      throw err;
    }
  }
}
