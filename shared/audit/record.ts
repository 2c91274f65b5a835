/**
 * Recording audit events: in the caller's transaction, as the webhook outbox does, so a committed change always has
 * its event and a rolled-back one never does. Call it last in the transaction: the leaf index is taken from the
 * log's head row, which stays locked until commit (see migrations/018_audit_events.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { insertAuditEvents, takeLeafIndexes, type AuditEventRow } from '../db/repositories/audit-events.js';
import { auditLeafHash } from './canonical.js';
import type { AuditAction, AuditActor, AuditJson, AuditOutcome, AuditTarget } from './vocabulary.js';

export interface AuditEventInput {
  action: AuditAction;
  actor: AuditActor;
  /** Null for service-wide events. */
  orgId: string | null;
  target?: AuditTarget | null;
  outcome?: AuditOutcome;
  /** Non-secret facts only: never a password, token, key or webhook secret. */
  details?: Record<string, unknown>;
}

export interface RecordedAuditEvent {
  id: string;
  leaf_index: number;
  leaf_hash: string;
}

/** JSON as it will be read back from jsonb: undefined fields dropped, Dates as ISO strings. */
function asJson(value: unknown): AuditJson {
  return JSON.parse(JSON.stringify(value ?? null)) as AuditJson;
}

export async function recordAuditEvents(db: Knex | Knex.Transaction, events: AuditEventInput[]): Promise<RecordedAuditEvent[]> {
  if (events.length === 0) return [];
  if (!db.isTransaction) return (db as Knex).transaction((trx) => recordAuditEvents(trx, events));
  const trx = db as Knex.Transaction;
  const first = await takeLeafIndexes(events.length, trx);
  const rows: AuditEventRow[] = events.map((e, i) => {
    const now = new Date();
    const hashed = {
      id: randomUUID(),
      time: now.toISOString(),
      org_id: e.orgId,
      actor: asJson(e.actor),
      action: e.action,
      target: asJson(e.target ?? null),
      outcome: e.outcome ?? 'success',
      details: asJson(e.details ?? {}),
    };
    return { ...hashed, time: now, leaf_index: first + i, leaf_hash: auditLeafHash(hashed).toString('base64') };
  });
  await insertAuditEvents(rows, trx);
  return rows.map((r) => ({ id: r.id, leaf_index: r.leaf_index, leaf_hash: r.leaf_hash }));
}

export async function recordAuditEvent(db: Knex | Knex.Transaction, event: AuditEventInput): Promise<RecordedAuditEvent> {
  return (await recordAuditEvents(db, [event]))[0]!;
}
