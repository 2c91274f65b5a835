import { readFile } from 'node:fs/promises';
import type { RemoteManifestsConfig } from '../../shared/config.js';
import { FetchFailedError, guardedFetch, UrlNotAllowedError } from '../../shared/net/guarded-fetch.js';
import { ApiError } from '../errors.js';

/** A remote manifest is fetched in the API process (the pool's tasks are CPU work); its bytes then go to the task. */
const TIMEOUT_MS = 10_000;
const MAX_REDIRECTS = 3;

export type RemoteManifestResult = { bytes: Uint8Array } | { error: string };

/**
 * Remote manifests, fetched through the outbound guard (https only, public addresses only after DNS resolution,
 * redirects re-checked, at most REMOTE_MANIFESTS_MAX_BYTES within 10 s), or why one was not: a failed fetch is part of
 * the verdict (manifest.inaccessible), never an error of the request.
 *
 * Anyone may send a file naming any URL, so the service must not become a way to hammer a third party's server:
 * a manifest fetched is kept (REMOTE_MANIFESTS_CACHE_SECONDS, at most REMOTE_MANIFESTS_CACHE_BYTES, least recently
 * used dropped first), requests for a URL already being fetched share that fetch, and at most
 * REMOTE_MANIFESTS_CONCURRENCY fetches run at once: beyond that a request is 503 remote_fetch_busy with Retry-After
 * (not an Invalid verdict: the file is not at fault). Failures are not kept: the next request tries again.
 */
export class RemoteManifests {
  private readonly cache = new Map<string, { bytes: Uint8Array; until: number }>();
  private cachedBytes = 0;
  private readonly inflight = new Map<string, Promise<RemoteManifestResult>>();
  /** REMOTE_MANIFESTS_CA_FILE's roots, read once. */
  private ca: Promise<string> | undefined;

  constructor(
    private readonly settings: RemoteManifestsConfig,
    private readonly now: () => number = Date.now,
  ) {}

  async fetch(url: string): Promise<RemoteManifestResult> {
    if (!this.settings.enabled) return { error: 'remote manifests are not fetched here (REMOTE_MANIFESTS=off)' };
    const cached = this.cached(url);
    if (cached) return { bytes: cached };
    const pending = this.inflight.get(url);
    if (pending) return pending;
    if (this.inflight.size >= this.settings.concurrency) {
      throw new ApiError('unavailable', 'remote_fetch_busy', `${this.settings.concurrency} remote manifests are being fetched (REMOTE_MANIFESTS_CONCURRENCY); try again shortly`, {
        retryAfterSeconds: 2,
      });
    }
    const fetching = this.download(url).finally(() => this.inflight.delete(url));
    this.inflight.set(url, fetching);
    const result = await fetching;
    if ('bytes' in result) this.keep(url, result.bytes);
    return result;
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

  private async download(url: string): Promise<RemoteManifestResult> {
    const { allowPrivate, caFile, maxBytes } = this.settings;
    if (caFile) this.ca ??= readFile(caFile, 'utf8');
    try {
      const res = await guardedFetch(url, {
        allowPrivate,
        allowHttp: false,
        maxRedirects: MAX_REDIRECTS,
        timeoutMs: TIMEOUT_MS,
        maxBytes,
        headers: { accept: 'application/c2pa' },
        ...(this.ca ? { ca: await this.ca } : {}),
      });
      if (res.status !== 200) return { error: `the server answered ${res.status}` };
      return { bytes: new Uint8Array(res.body) };
    } catch (err) {
      if (err instanceof UrlNotAllowedError || err instanceof FetchFailedError) return { error: err.message };
      throw err;
    }
  }
}
