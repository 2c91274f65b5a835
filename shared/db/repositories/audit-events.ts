/**
 * The audit log's tables (the only module naming them): events (audit_events, with the head counter that hands out
 * their leaf indexes) and signed checkpoints (audit_checkpoints). Both tables are append-only (a trigger refuses
 * UPDATE and DELETE); nothing here edits a row.
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

function normalise(rows: AuditEventRow[]): AuditEventRow[] {
  return rows.map((r) => ({ ...r, leaf_index: Number(r.leaf_index) }));
}

function normaliseCheckpoints(rows: AuditCheckpointRow[]): AuditCheckpointRow[] {
  return rows.map((r) => ({ ...r, tree_size: Number(r.tree_size), anchor_leaf_id: r.anchor_leaf_id === null ? null : Number(r.anchor_leaf_id) }));
}
