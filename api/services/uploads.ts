/** Files received to be signed: checked, put in the file store and recorded for the caller's organisation. */
import { randomUUID } from 'node:crypto';
import type { Knex } from '../../shared/db/knex.js';
import type { PageRequest } from '../../shared/db/page.js';
import { renditionPartCounts } from '../../shared/db/repositories/rendition-parts.js';
import { findOrgUpload, insertUpload, listOrgUploads, type Upload, type UploadView } from '../../shared/db/repositories/uploads.js';
import { documentTitle } from '../../shared/media/document-title.js';
import { extensionFor, identifyMedia, type MediaMimeType } from '../../shared/media/formats.js';
import type { StagedFile } from '../../shared/storage/index.js';
import type { Principal } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import type { Config } from '../../shared/config.js';
import { badRequest } from '../errors.js';
import { assertWithinUploadLimit, type PartsSpec, type ReceivedPart } from '../media/multipart-file.js';
import { MAX_RENDITION_PLAYLISTS, RENDITION_PARTS, storeRendition } from './rendition-uploads.js';
import { pageResult } from '../pagination.js';

/** Who did it, in the columns uploads and sign jobs name their actor with. */
export function actorColumns(p: Principal): { user_id: string | null; api_key_id: string | null } {
  return p.kind === 'user' ? { user_id: p.userId, api_key_id: null } : { user_id: null, api_key_id: p.apiKeyId };
}

/**
 * Checks a staged file (its format from its content, the size limit of that kind and, for an image, its pixels),
 * puts it in the file store and records it. The staged copy is discarded whatever happens; a file that is not
 * acceptable media throws MediaRejectedError.
 */
export async function storeUpload(
  deps: Pick<AppContext, 'knex' | 'config' | 'files' | 'staging' | 'uploadCheckPool'>,
  principal: Principal,
  staged: StagedFile,
  filename: string,
  signal?: AbortSignal,
): Promise<UploadView> {
  const id = randomUUID();
  let storageKey: string;
  let mimeType: MediaMimeType;
  let documentTitleOf: string | undefined;
  try {
    const identified = await identifyMedia(staged.tempPath);
    mimeType = identified.mimeType;
    // The limit of the kind it turned out to be (video, audio, image): 413, and the staged copy is discarded.
    assertWithinUploadLimit(deps.config, mimeType, staged.size);
    // An image's pixels: within MAX_IMAGE_PIXELS (from its header) and all there (decoded), in the uploads' own pool.
    if (identified.kind === 'image') await deps.uploadCheckPool.run('check_image', { filePath: staged.tempPath, mimeType, maxPixels: deps.config.maxImagePixels }, signal);
    // A document's own title, for a sign request that gives none (bounded reads of the checked file).
    if (identified.kind === 'document') documentTitleOf = await documentTitle(staged.tempPath, mimeType);
    // Only a checked file reaches the store, streamed from the staged copy.
    storageKey = `uploads/${principal.orgId}/${id}.${extensionFor(mimeType)}`;
    await deps.files.putFile(storageKey, staged.tempPath);
  } finally {
    await deps.staging.discard(staged);
  }
  try {
    const upload = await insertUpload(
      { id, org_id: principal.orgId, ...actorColumns(principal), filename, mime_type: mimeType, size: staged.size, sha256: staged.sha256, storage_key: storageKey, document_title: documentTitleOf ?? null },
      deps.knex,
    );
    return upload.toPublic();
  } catch (err) {
    await deps.files.remove(storageKey);
    throw err;
  }
}

/**
 * What POST /v1/media/upload takes: one part `file`, or a fragmented MP4 rendition (one `init`, its `fragment` parts in
 * order, optional `playlist` parts), all of it within `maxBytes`.
 */
export function uploadPartsSpec(config: Pick<Config, 'maxRenditionFragments'>, maxBytes: number): PartsSpec {
  return {
    parts: { file: 1, [RENDITION_PARTS.init]: 1, [RENDITION_PARTS.fragment]: config.maxRenditionFragments, [RENDITION_PARTS.playlist]: MAX_RENDITION_PLAYLISTS },
    maxPartBytes: maxBytes,
    maxTotalBytes: maxBytes,
    expected: `one file part named "file", or a rendition: one part "init", 1 to ${config.maxRenditionFragments} parts "fragment" (MAX_RENDITION_FRAGMENTS) and at most ${MAX_RENDITION_PLAYLISTS} parts "playlist"`,
  };
}

/**
 * Stores what an upload sent: a single file (part `file`) or a rendition (parts `init`, `fragment`, `playlist`). The
 * staged files are discarded whatever happens.
 */
export async function storeUploadParts(deps: Parameters<typeof storeUpload>[0], principal: Principal, parts: ReceivedPart[], signal?: AbortSignal): Promise<UploadView> {
  const file = parts.filter((p) => p.name === 'file');
  try {
    if (file.length && file.length === parts.length) return await storeUpload(deps, principal, file[0]!.staged, file[0]!.filename || 'upload', signal);
    if (file.length) throw badRequest('send either one part "file" or a rendition (parts "init", "fragment", "playlist"), not both', 'mixed_parts');
    if (!parts.length) throw badRequest('the multipart body has no part named "file" (or "init" with "fragment" parts)', 'file_required');
    return await storeRendition(deps, principal, parts);
  } finally {
    await Promise.all(parts.map((p) => deps.staging.discard(p.staged)));
  }
}

/** The organisation's upload, or undefined: another organisation's upload, or an id that is no UUID, is not found. */
export async function findUpload(knex: Knex, orgId: string, uploadId: string): Promise<Upload | undefined> {
  return /^[0-9a-f-]{36}$/i.test(uploadId) ? findOrgUpload(orgId, uploadId.toLowerCase(), knex) : undefined;
}

/** A page of the organisation's uploads, newest first; a rendition with its count of segments and playlists. */
export async function listUploads(knex: Knex, orgId: string, page: PageRequest): Promise<{ uploads: UploadView[]; next_cursor: string | null }> {
  const { items, next_cursor } = pageResult(await listOrgUploads(orgId, page, knex), page);
  const counts = await renditionPartCounts(orgId, 'upload_id', items.map((u) => u.id), knex);
  const view = (u: Upload): UploadView => {
    const parts = counts.get(u.id);
    return { ...u.toPublic(), rendition: parts ? { fragments: parts.fragment, playlists: parts.playlist } : null };
  };
  return { uploads: items.map(view), next_cursor };
}
