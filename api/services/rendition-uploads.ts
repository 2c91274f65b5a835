/**
 * Fragmented MP4 renditions received to be signed: an init segment, its media segments in order and, optionally,
 * its playlists, sent as one multipart upload. Checked (shared/c2pa/bmff-rendition-check.ts: what c2pa-rs can sign as
 * a rendition; shared/media/rendition-playlists.ts), each part put in the file store, and recorded as one upload with
 * its parts (rendition_parts). The upload's own row stands for the rendition: the init segment's type, key and SHA-256,
 * the size of all parts.
 */
import { randomUUID } from 'node:crypto';
import { checkRendition } from '../../shared/c2pa/bmff-rendition-check.js';
import { insertRenditionParts, type RenditionPartRow, type RenditionRole } from '../../shared/db/repositories/rendition-parts.js';
import { insertUpload, type UploadView } from '../../shared/db/repositories/uploads.js';
import { formatFor, identifyMedia } from '../../shared/media/formats.js';
import { checkPlaylist } from '../../shared/media/rendition-playlists.js';
import type { Principal } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { ApiError, badRequest } from '../errors.js';
import { assertWithinUploadLimit, type ReceivedPart } from '../media/multipart-file.js';
import { actorColumns } from './uploads.js';

type Deps = Pick<AppContext, 'knex' | 'config' | 'files'>;

/** The multipart part names of a rendition. */
export const RENDITION_PARTS = { init: 'init', fragment: 'fragment', playlist: 'playlist' } as const;

/** Playlists one rendition may come with (a DASH MPD and an HLS playlist, a master and its media playlists). */
export const MAX_RENDITION_PLAYLISTS = 16;

/** A part of the rendition, ready to check and store. */
interface Part extends ReceivedPart {
  role: RenditionRole;
  position: number;
}

/** The parts in rendition order (init, segments as sent, playlists), each named: the client's name, or one made up. */
function ordered(received: readonly ReceivedPart[]): Part[] {
  const of = (name: string) => received.filter((p) => p.name === name);
  const init = of(RENDITION_PARTS.init);
  const segments = of(RENDITION_PARTS.fragment);
  if (init.length !== 1) throw badRequest('a rendition has exactly one part named "init" (its init segment)', 'init_required');
  if (!segments.length) throw badRequest('a rendition has one or more parts named "fragment" (its media segments, in order)', 'fragment_required');
  const parts: Part[] = [
    { ...init[0]!, role: 'init', position: 0, filename: init[0]!.filename || 'init.mp4' },
    ...segments.map((p, i): Part => ({ ...p, role: 'fragment', position: i + 1, filename: p.filename || `segment-${i + 1}.m4s` })),
    ...of(RENDITION_PARTS.playlist).map((p, i): Part => ({ ...p, role: 'playlist', position: segments.length + 1 + i, filename: p.filename || `playlist-${i + 1}` })),
  ];
  const seen = new Set<string>();
  for (const part of parts) {
    if (seen.has(part.filename)) throw badRequest(`two parts are named "${part.filename}": the parts of a rendition come back under their names, which must differ`, 'duplicate_part_name');
    seen.add(part.filename);
  }
  return parts;
}

const extensionOf = (part: Part, playlistKind?: string) => (part.role === 'init' ? 'mp4' : part.role === 'fragment' ? 'm4s' : playlistKind ?? 'txt');

/**
 * Checks a rendition's staged parts and stores it as one upload. The caller discards the staged files afterwards.
 * Refusals: 400 for parts missing or named twice, 413 past the kind's limit, 415 an init segment of no BMFF format,
 * 422 what cannot be signed as a rendition (with its reason).
 */
export async function storeRendition(deps: Deps, principal: Principal, received: readonly ReceivedPart[]): Promise<UploadView> {
  const parts = ordered(received);
  const [init, ...rest] = parts as [Part, ...Part[]];
  const segments = rest.filter((p) => p.role === 'fragment');
  const { mimeType } = await identifyMedia(init.staged.tempPath);
  if (formatFor(mimeType)?.streamed !== 'bmff') {
    throw new ApiError('unsupported', 'unsupported_media_type', `the init segment ${init.filename} is ${mimeType}, not an ISO BMFF init segment (MP4, M4V, MOV, M4A)`);
  }
  const size = parts.reduce((n, p) => n + p.staged.size, 0);
  assertWithinUploadLimit(deps.config, mimeType, size);
  await checkRendition({ path: init.staged.tempPath, name: init.filename }, segments.map((p) => ({ path: p.staged.tempPath, name: p.filename })));
  const kinds = new Map<Part, string>();
  for (const playlist of parts.filter((p) => p.role === 'playlist')) kinds.set(playlist, await checkPlaylist(playlist.staged.tempPath, playlist.filename, playlist.staged.size));

  const id = randomUUID();
  const rows: RenditionPartRow[] = [];
  try {
    for (const part of parts) {
      const storageKey = `uploads/${principal.orgId}/${id}/${part.position}.${extensionOf(part, kinds.get(part))}`;
      await deps.files.putFile(storageKey, part.staged.tempPath);
      rows.push({ position: part.position, role: part.role, filename: part.filename, size: part.staged.size, sha256: part.staged.sha256, storage_key: storageKey });
    }
    const upload = await deps.knex.transaction(async (trx) => {
      const row = await insertUpload(
        { id, org_id: principal.orgId, ...actorColumns(principal), filename: init.filename, mime_type: mimeType, size, sha256: init.staged.sha256, storage_key: rows[0]!.storage_key },
        trx,
      );
      await insertRenditionParts(principal.orgId, { upload_id: id }, rows, trx);
      return row;
    });
    return {
      ...upload.toPublic(),
      rendition: { fragments: segments.length, playlists: parts.length - 1 - segments.length, parts: rows.map(({ role, filename, size: bytes, sha256 }) => ({ role, filename, size: bytes, sha256 })) },
    };
  } catch (err) {
    // Nothing half-stored: the parts already in the store go with the failed upload.
    await Promise.all(rows.map((r) => deps.files.remove(r.storage_key).catch(() => undefined)));
    throw err;
  }
}
