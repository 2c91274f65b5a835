/**
 * The rendition_parts table: the files a fragmented MP4 rendition is made of (its init segment, media segments and
 * playlists), for an upload as it was sent and for the signed rendition a job made of it. Read by the organisation
 * that owns them only.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from '../knex.js';

export type RenditionRole = 'init' | 'fragment' | 'playlist';

export interface RenditionPartRow {
  position: number;
  role: RenditionRole;
  filename: string;
  size: number;
  sha256: string;
  storage_key: string;
}

/** The rendition's parts as the public views show them. */
export interface RenditionPartView {
  role: RenditionRole;
  filename: string;
  size: number;
  sha256: string;
}

export type RenditionOwner = { upload_id: string } | { signed_file_id: string };

/** Records the parts of an upload or a signed file (in the caller's transaction, with their owner's row). */
export async function insertRenditionParts(orgId: string, owner: RenditionOwner, parts: readonly RenditionPartRow[], db: Knex): Promise<void> {
  // Batches: a rendition may have thousands of segments, and a statement has at most 65535 parameters.
  for (let i = 0; i < parts.length; i += 1000) {
    await db('rendition_parts').insert(parts.slice(i, i + 1000).map((p) => ({ id: randomUUID(), org_id: orgId, ...owner, ...p })));
  }
}

/** The organisation's parts of an upload or a signed file, in order (none: it is not a rendition, or not theirs). */
export async function renditionParts(orgId: string, owner: RenditionOwner, db: Knex): Promise<RenditionPartRow[]> {
  const rows = (await db('rendition_parts')
    .where({ org_id: orgId, ...owner })
    .orderBy('position')
    .select('position', 'role', 'filename', 'size', 'sha256', 'storage_key')) as RenditionPartRow[];
  return rows.map((r) => ({ ...r, size: Number(r.size) }));
}

/**
 * For each of the organisation's uploads (or signed files) among `ids` that is a rendition: its count of parts by
 * role. `orgId` undefined: whatever their organisation, for the service's own events (webhooks), never for a caller.
 */
export async function renditionPartCounts(orgId: string | undefined, column: 'upload_id' | 'signed_file_id', ids: readonly string[], db: Knex): Promise<Map<string, Record<RenditionRole, number>>> {
  const counts = new Map<string, Record<RenditionRole, number>>();
  if (!ids.length) return counts;
  const rows = (await db('rendition_parts')
    .where(orgId === undefined ? {} : { org_id: orgId })
    .whereIn(column, ids)
    .groupBy(column, 'role')
    .select(`${column} as owner`, 'role', db.raw('count(*)::int as n'))) as { owner: string; role: RenditionRole; n: number }[];
  for (const { owner, role, n } of rows) {
    const entry = counts.get(owner) ?? { init: 0, fragment: 0, playlist: 0 };
    entry[role] = Number(n);
    counts.set(owner, entry);
  }
  return counts;
}
