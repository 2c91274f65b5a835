/**
 * Reading the audit log: an organisation's events (its own only), the latest signed checkpoint, and the RFC 9162
 * proofs. Proofs are computed from the stored leaf hashes (a tree kept in memory, grown as the log grows) and hold
 * hashes only, so they reveal no other organisation's events.
 */
import type { Knex } from 'knex';
import { LogTreeCache } from '../../shared/audit-log/tree-cache.js';
import { ArchivedRangeError } from '../../shared/audit-log/tree.js';
import { auditEventView, type AuditEventView } from '../../shared/audit/view.js';
import { auditLogSize, findOrgAuditEvent, latestAuditCheckpoint, listOrgAuditEvents, type AuditEventFilter } from '../../shared/db/repositories/audit-events.js';
import { ApiError, notFound } from '../errors.js';

export async function listAuditEvents(knex: Knex, orgId: string, filter: AuditEventFilter, limit: number): Promise<{ events: AuditEventView[]; next_cursor: string | null }> {
  const rows = await listOrgAuditEvents(orgId, filter, limit, knex);
  const page = rows.slice(0, limit);
  return { events: page.map(auditEventView), next_cursor: rows.length > limit ? String(page[page.length - 1]!.leaf_index) : null };
}

export async function latestCheckpoint(knex: Knex) {
  const c = await latestAuditCheckpoint(knex);
  if (!c) throw notFound('audit checkpoint (none is signed yet)');
  const origin = c.note.slice(0, c.note.indexOf('\n'));
  return { origin, tree_size: c.tree_size, root_hash: c.root_hash, note: c.note, public_key: c.public_key, signed_at: c.signed_at.toISOString() };
}

const beyond = (message: string) => new ApiError('invalid', 'tree_size_out_of_range', message);

/** One tree per process, shared by every request. */
export function auditProofs(knex: Knex) {
  const trees = new LogTreeCache(knex);

  return {
    async inclusion(orgId: string, eventId: string, treeSize: number | undefined) {
      const event = await findOrgAuditEvent(orgId, eventId, knex);
      if (!event) throw notFound('audit event');
      const size = treeSize ?? (await latestAuditCheckpoint(knex))?.tree_size;
      if (size === undefined) throw notFound('audit checkpoint (none is signed yet)');
      if (size <= event.leaf_index) throw beyond(`the event is leaf ${event.leaf_index}: it is in trees of more than ${event.leaf_index} leaves only`);
      const logSize = await auditLogSize(knex);
      if (size > logSize) throw beyond(`the log holds ${logSize} events, not ${size}`);
      const tree = await trees.upTo(size);
      return { leaf_index: event.leaf_index, tree_size: size, audit_path: tree.inclusionProof(event.leaf_index, size).map((h) => h.toString('base64')) };
    },

    async consistency(first: number, second: number) {
      if (first > second) throw beyond('first must not be larger than second');
      const logSize = await auditLogSize(knex);
      if (second > logSize) throw beyond(`the log holds ${logSize} events, not ${second}`);
      const tree = await trees.upTo(second);
      try {
        return { first, second, proof: tree.consistencyProof(first, second).map((h) => h.toString('base64')) };
      } catch (err) {
        // The proof needs hashes inside an archived range: only the archive file holds them now.
        if (err instanceof ArchivedRangeError) throw new ApiError('not_found', 'archived', `the first ${err.base} events are archived: no consistency proof from ${first} (ask from ${err.base} or later)`);
        throw err;
      }
    },
  };
}
