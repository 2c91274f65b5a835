/**
 * The audit log's tables (the only module naming them): events (audit_events, with the head counter that hands out
 * their leaf indexes), signed checkpoints (audit_checkpoints) and archived ranges (audit_archives). All are
 * append-only (a trigger refuses UPDATE and DELETE); nothing here edits a row, and the only rows removed are events
 * below a recorded archive's end, in that archive's transaction.
 */
import type { Knex } from 'knex';

type Db = Knex | Knex.Transaction;
type Json = unknown;

export interface AuditEventRow {
  id: string;
  leaf_index: number;
  leaf_hash: string;
  time: Date;
  org_id: string | null;
  actor: Json;
  action: string;
  target: Json;
  outcome: string;
  details: Json;
}

export interface AuditCheckpointRow {
  tree_size: number;
  root_hash: string;
  note: string;
  public_key: string;
  signed_at: Date;
  anchor_leaf_id: number | null;
}

export interface AuditArchiveRow {
  start_index: number;
  end_index: number;
  /** Base64 hashes of the complete subtrees of leaves [0, end_index), largest first. */
  frontier: string[];
  file_sha256: string;
  before: Date;
  archived_at: Date;
}

/**
 * Takes `count` consecutive leaf indexes and answers the first. The head row stays locked until the caller's
 * transaction ends, so writers queue here and a rollback gives the indexes back: no gaps, committed in order.
 */
export async function takeLeafIndexes(count: number, trx: Knex.Transaction): Promise<number> {
  const result = (await trx.raw('UPDATE audit_log_head SET size = size + ? WHERE id = 1 RETURNING size - ? AS first', [count, count])) as { rows: Array<{ first: number | string }> };
  return Number(result.rows[0]!.first);
}

export async function insertAuditEvents(rows: AuditEventRow[], trx: Knex.Transaction): Promise<void> {
  await trx('audit_events').insert(
    rows.map((r) => ({ ...r, actor: JSON.stringify(r.actor), target: r.target === null ? null : JSON.stringify(r.target), details: JSON.stringify(r.details) })),
  );
}

/** How many events are committed: the log's size (every index below it is taken by a committed event). */
export async function auditLogSize(db: Db): Promise<number> {
  const row = (await db('audit_log_head').where({ id: 1 }).first('size')) as { size: number | string };
  return Number(row.size);
}

export interface AuditEventFilter {
  action?: string;
  /** Matches the actor's id, address, role or command. */
  actor?: string;
  since?: Date;
  until?: Date;
  /** Only events with a smaller leaf index (the cursor of a newest-first page). */
  beforeIndex?: number;
}

/** An organisation's events, newest first: at most `limit` + 1 (the extra one says a next page exists). */
export async function listOrgAuditEvents(orgId: string, filter: AuditEventFilter, limit: number, db: Db): Promise<AuditEventRow[]> {
  const q = db('audit_events').where({ org_id: orgId }).orderBy('leaf_index', 'desc').limit(limit + 1);
  if (filter.action) q.where({ action: filter.action });
  if (filter.actor) {
    const a = filter.actor;
    q.where((w) => w.whereRaw("actor->>'id' = ?", [a]).orWhereRaw("actor->>'address' = ?", [a]).orWhereRaw("actor->>'role' = ?", [a]).orWhereRaw("actor->>'command' = ?", [a]).orWhereRaw("actor->>'type' = ?", [a]));
  }
  if (filter.since) q.where('time', '>=', filter.since);
  if (filter.until) q.where('time', '<', filter.until);
  if (filter.beforeIndex !== undefined) q.where('leaf_index', '<', filter.beforeIndex);
  return normalise(await q.select('*'));
}

export async function findOrgAuditEvent(orgId: string, id: string, db: Db): Promise<AuditEventRow | undefined> {
  return normalise(await db('audit_events').where({ org_id: orgId, id }).select('*'))[0];
}

/** Events with leaf_index in [start, end), in index order (all organisations): for the tree, verify and export. */
export async function auditEventsInRange(start: number, end: number, db: Db): Promise<AuditEventRow[]> {
  if (end <= start) return [];
  return normalise(await db('audit_events').where('leaf_index', '>=', start).andWhere('leaf_index', '<', end).orderBy('leaf_index').select('*'));
}

/** Stored leaf hashes (base64) with leaf_index in [start, end), in index order. */
export async function auditLeafHashesInRange(start: number, end: number, db: Db): Promise<Array<{ leaf_index: number; leaf_hash: string }>> {
  if (end <= start) return [];
  const rows = (await db('audit_events').where('leaf_index', '>=', start).andWhere('leaf_index', '<', end).orderBy('leaf_index').select('leaf_index', 'leaf_hash')) as Array<{
    leaf_index: number | string;
    leaf_hash: string;
  }>;
  return rows.map((r) => ({ leaf_index: Number(r.leaf_index), leaf_hash: r.leaf_hash }));
}

export async function insertAuditCheckpoint(row: Omit<AuditCheckpointRow, 'signed_at'>, trx: Knex.Transaction): Promise<void> {
  await trx('audit_checkpoints').insert(row);
}

export async function latestAuditCheckpoint(db: Db): Promise<AuditCheckpointRow | undefined> {
  return normaliseCheckpoints(await db('audit_checkpoints').orderBy('tree_size', 'desc').limit(1).select('*'))[0];
}

export async function allAuditCheckpoints(db: Db): Promise<AuditCheckpointRow[]> {
  return normaliseCheckpoints(await db('audit_checkpoints').orderBy('tree_size').select('*'));
}

/** The smallest leaf index at or above `from` of an event recorded at or after `time`, if any. */
export async function firstAuditEventAtOrAfter(time: Date, from: number, db: Db): Promise<number | undefined> {
  const row = (await db('audit_events').where('leaf_index', '>=', from).andWhere('time', '>=', time).min('leaf_index as first').first()) as { first: number | string | null } | undefined;
  return row?.first === null || row?.first === undefined ? undefined : Number(row.first);
}

/** The largest checkpointed tree size in (above, atMost], if any. */
export async function largestAuditCheckpointIn(above: number, atMost: number, db: Db): Promise<AuditCheckpointRow | undefined> {
  return normaliseCheckpoints(await db('audit_checkpoints').where('tree_size', '>', above).andWhere('tree_size', '<=', atMost).orderBy('tree_size', 'desc').limit(1).select('*'))[0];
}

export async function auditArchives(db: Db): Promise<AuditArchiveRow[]> {
  return normaliseArchives(await db('audit_archives').orderBy('end_index').select('*'));
}

export async function latestAuditArchive(db: Db): Promise<AuditArchiveRow | undefined> {
  return normaliseArchives(await db('audit_archives').orderBy('end_index', 'desc').limit(1).select('*'))[0];
}

/** Records an archived range and removes its events (the trigger lets through only events below a recorded end). */
export async function archiveAuditEvents(row: Omit<AuditArchiveRow, 'archived_at'>, trx: Knex.Transaction): Promise<number> {
  await trx('audit_archives').insert({ ...row, frontier: JSON.stringify(row.frontier) });
  return trx('audit_events').where('leaf_index', '>=', row.start_index).andWhere('leaf_index', '<', row.end_index).delete();
}

function normaliseArchives(rows: AuditArchiveRow[]): AuditArchiveRow[] {
  return rows.map((r) => ({ ...r, start_index: Number(r.start_index), end_index: Number(r.end_index) }));
}

function normalise(rows: AuditEventRow[]): AuditEventRow[] {
  return rows.map((r) => ({ ...r, leaf_index: Number(r.leaf_index) }));
}

function normaliseCheckpoints(rows: AuditCheckpointRow[]): AuditCheckpointRow[] {
  return rows.map((r) => ({ ...r, tree_size: Number(r.tree_size), anchor_leaf_id: r.anchor_leaf_id === null ? null : Number(r.anchor_leaf_id) }));
}
