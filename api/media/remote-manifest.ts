import { readFile } from 'node:fs/promises';
import type { Config } from '../../shared/config.js';
import { FetchFailedError, guardedFetch, UrlNotAllowedError } from '../../shared/net/guarded-fetch.js';

/** A remote manifest is fetched in the API process (the pool's tasks are CPU work); its bytes then go to the task. */
const TIMEOUT_MS = 10_000;
const MAX_REDIRECTS = 3;

/**
 * The manifest store at the URL a file names, fetched through the outbound guard (https only, public addresses only
 * after DNS resolution, redirects re-checked, at most MAX_UPLOAD_BYTES within 10 s), or why it was not: a failed
 * fetch is part of the verdict (manifest.inaccessible), never an error of the request.
 */
export async function fetchRemoteManifest(config: Pick<Config, 'remoteManifests' | 'maxUploadBytes'>, url: string): Promise<{ bytes: Uint8Array } | { error: string }> {
  const { enabled, allowPrivate, caFile } = config.remoteManifests;
  if (!enabled) return { error: 'remote manifests are not fetched here (REMOTE_MANIFESTS=off)' };
  try {
    const res = await guardedFetch(url, {
      allowPrivate,
      allowHttp: false,
      maxRedirects: MAX_REDIRECTS,
      timeoutMs: TIMEOUT_MS,
      maxBytes: config.maxUploadBytes,
      headers: { accept: 'application/c2pa' },
      ...(caFile ? { ca: await readFile(caFile, 'utf8') } : {}),
    });
    if (res.status !== 200) return { error: `the server answered ${res.status}` };
    return { bytes: new Uint8Array(res.body) };
  } catch (err) {
    if (err instanceof UrlNotAllowedError || err instanceof FetchFailedError) return { error: err.message };
    throw err;
  }
}
