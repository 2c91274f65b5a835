/** An event as the API, the export and the checkers see it: the fields its leaf hash covers, plus its place in the log. */
import type { AuditEventRow } from '../db/repositories/audit-events.js';
import { auditLeafHash, type HashedAuditEvent } from './canonical.js';
import type { AuditJson } from './vocabulary.js';

export interface AuditEventView extends HashedAuditEvent {
  leaf_index: number;
  leaf_hash: string;
}

export function auditEventView(row: AuditEventRow): AuditEventView {
  return {
    id: row.id,
    leaf_index: row.leaf_index,
    leaf_hash: row.leaf_hash,
    time: row.time.toISOString(),
    org_id: row.org_id,
    actor: row.actor as AuditJson,
    action: row.action,
    target: (row.target ?? null) as AuditJson,
    outcome: row.outcome,
    details: row.details as AuditJson,
  };
}

/** The leaf hash of the row's content as stored now (base64): differs from leaf_hash when the row was edited. */
export function recomputedLeafHash(row: AuditEventRow): string {
  return auditLeafHash(auditEventView(row)).toString('base64');
}
