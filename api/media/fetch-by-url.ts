import { Readable } from 'node:stream';
import { linkWithRelation } from '../../shared/net/link-header.js';
import type { StagedFile } from '../../shared/storage/index.js';
import type { AppContext } from '../context.js';
import type { RemoteManifestSource } from './remote-manifest.js';

/** Where a file verified by URL came from, as the answer says it. */
export interface FetchedFrom {
  /** The URL that answered, after redirects. */
  url: string;
  /** The manifest URL the server's `Link: <...>; rel="c2pa-manifest"` header named, or null. */
  manifest_link: string | null;
  /** Why that manifest was not used (the file was then read alone: its embedded manifest or XMP reference). */
  manifest_link_error?: string;
}

/**
 * POST /v1/verify {url}: the file fetched through the outbound guard (RemoteManifestSource.fetchFile) and staged as an
 * upload is. C2PA 2.2 §15.5.3.2: a validator looks at the response's `Link` header with rel="c2pa-manifest" before the
 * XMP reference; the manifest it names is fetched as remote manifests are (kept, shared, budgeted) and read with the
 * file as its sidecar. One that cannot be fetched leaves the file to be read alone, and the answer says why.
 */
export async function fetchByUrl(
  ctx: Pick<AppContext, 'staging' | 'config'>,
  remote: RemoteManifestSource,
  url: string,
): Promise<{ staged: StagedFile; manifest: StagedFile | undefined; fetched: FetchedFrom }> {
  const maxBytes = ctx.config.maxUploadBytes;
  const file = await remote.fetchFile(url, maxBytes);
  const manifestLink = linkWithRelation(file.link, 'c2pa-manifest', file.url);
  const fetched: FetchedFrom = { url: file.url, manifest_link: manifestLink ?? null };
  let manifestBytes: Uint8Array | undefined;
  if (manifestLink) {
    const found = await remote.fetch(manifestLink);
    if ('bytes' in found) manifestBytes = found.bytes;
    else fetched.manifest_link_error = found.error;
  }
  const staged = await ctx.staging.stage(Readable.from([file.body]), maxBytes);
  try {
    const manifest = manifestBytes ? await ctx.staging.stage(Readable.from([Buffer.from(manifestBytes)]), maxBytes) : undefined;
    return { staged, manifest, fetched };
  } catch (err) {
    await ctx.staging.discard(staged);
    throw err;
  }
}
