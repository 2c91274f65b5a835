/**
 * Archiving old events (`npm run audit -- export --before TIME --out FILE`): the oldest events still in the database,
 * up to the largest checkpoint whose every event is older than TIME, go to an archive file (archive-file.ts) and
 * leave the database. Only whole ranges ending at a signed checkpoint are archived, so the archive is checkable on its
 * own and the database keeps, in audit_archives, the frontier at its end: every later root and proof needs nothing
 * else of the archived events.
 *
 * In order, so that no step loses an event: the range is read, each event rehashed (a log that does not verify is
 * not archived) and written to FILE.partial; its tree must give the checkpoint's signed root; the file is synced,
 * read back and checked as `verify --archive` checks it, then renamed to FILE. Only then, in one transaction, the
 * archive is recorded, its events deleted (the trigger lets through events below a recorded archive's end only) and
 * an `audit.archived` event recorded. With `keep`, the file is written and the database left as it was.
 */
import { createHash } from 'node:crypto';
import { constants, createWriteStream, existsSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import path from 'node:path';
import type { Knex } from 'knex';
import { recordAuditEvent } from '../audit/record.js';
import { auditEventView, recomputedLeafHash } from '../audit/view.js';
import {
  archiveAuditEvents,
  auditEventsInRange,
  auditLogSize,
  firstAuditEventAtOrAfter,
  largestAuditCheckpointIn,
  latestAuditArchive,
} from '../db/repositories/audit-events.js';
import { archiveHeaderLine, checkArchiveFile } from './archive-file.js';
import { openCheckpoint } from './checkpoint-note.js';
import { MerkleLog } from './tree.js';

export class ArchiveError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArchiveError';
  }
}

export interface ArchiveOptions {
  knex: Knex;
  publicKeySpki: Uint8Array;
  origin: string;
  before: Date;
  out: string;
  /** Write the archive but leave its events in the database. */
  keep?: boolean;
}

export type ArchiveResult =
  | { archived: false; reason: string }
  | { archived: true; start: number; end: number; file: string; sha256: string; removed: boolean };

const PAGE = 5000;

/** The range to archive: from the end of the last archive to the largest checkpoint with only older events below it. */
async function plan(knex: Knex, before: Date) {
  const last = await latestAuditArchive(knex);
  const start = last?.end_index ?? 0;
  const firstNewer = (await firstAuditEventAtOrAfter(before, start, knex)) ?? (await auditLogSize(knex));
  const checkpoint = await largestAuditCheckpointIn(start, firstNewer, knex);
  return { start, firstNewer, checkpoint, frontierStart: last?.frontier ?? [] };
}

export async function archiveAuditLog(o: ArchiveOptions): Promise<ArchiveResult> {
  const { knex } = o;
  if (existsSync(o.out)) throw new ArchiveError(`${o.out} exists: an archive is never written over another file`);
  const partial = `${o.out}.partial`;
  if (existsSync(partial)) throw new ArchiveError(`${partial} exists: another archive is being written, or one failed (remove it)`);
  const { start, firstNewer, checkpoint, frontierStart } = await plan(knex, o.before);
  if (!checkpoint) {
    const reason =
      firstNewer <= start
        ? `no event before ${o.before.toISOString()} is left in the database (archived up to leaf ${start})`
        : `no signed checkpoint ends between leaf ${start} and leaf ${firstNewer} (the first event at or after ${o.before.toISOString()}): wait for the next checkpoint`;
    return { archived: false, reason };
  }
  const end = checkpoint.tree_size;
  const signed = openCheckpoint(checkpoint.note, o.publicKeySpki, o.origin);
  if (signed.treeSize !== end) throw new ArchiveError(`checkpoint ${end}: its note signs ${signed.treeSize} events`);

  try {
    const sha256 = await writeRange(o, partial, { start, end, frontierStart, note: checkpoint.note, root: signed.root });
    const check = await checkArchiveFile(partial, o.publicKeySpki, o.origin);
    if (check.problems.length > 0 || check.sha256 !== sha256) throw new ArchiveError(`the archive read back does not check: ${check.problems.map((p) => `${p.subject}: ${p.message}`).join('; ') || 'its bytes changed'}`);
    await rename(partial, o.out);
    await syncDirectory(path.dirname(o.out));
    if (o.keep) return { archived: true, start, end, file: o.out, sha256, removed: false };

    const frontier = check.tree!.frontier(end).map((h) => h.toString('base64'));
    await knex.transaction(async (trx) => {
      // One archive at a time, each starting where the last ended.
      await trx.raw('LOCK TABLE audit_archives IN SHARE ROW EXCLUSIVE MODE');
      const last = await latestAuditArchive(trx);
      if ((last?.end_index ?? 0) !== start) throw new ArchiveError(`another archive (up to leaf ${last?.end_index}) was recorded meanwhile: ${o.out} is not recorded; remove it and run again`);
      const removed = await archiveAuditEvents({ start_index: start, end_index: end, frontier, file_sha256: sha256, before: o.before }, trx);
      if (removed !== end - start) throw new ArchiveError(`${removed} events found in the database for leaves ${start} to ${end - 1}: nothing removed`);
      await recordAuditEvent(trx, {
        action: 'audit.archived',
        actor: { type: 'operator', command: 'audit export --before' },
        orgId: null,
        target: { type: 'audit_range', id: `${start}-${end - 1}` },
        details: { start, end, events: end - start, before: o.before.toISOString(), file_sha256: sha256 },
      });
    });
    return { archived: true, start, end, file: o.out, sha256, removed: true };
  } finally {
    await rm(partial, { force: true });
  }
}

/** Writes leaves [start, end) to `file` (created, never overwritten) and answers the SHA-256 of its bytes. */
async function writeRange(o: ArchiveOptions, file: string, r: { start: number; end: number; frontierStart: string[]; note: string; root: Buffer }): Promise<string> {
  const tree = MerkleLog.fromFrontier(
    r.start,
    r.frontierStart.map((h) => Buffer.from(h, 'base64')),
  );
  const digest = createHash('sha256');
  const out = createWriteStream(file, { flags: 'wx', mode: 0o600 });
  // Kept for the caller, not thrown as an unhandled 'error' event: a write that failed ends the archive run.
  let failure: Error | undefined;
  out.on('error', (err) => (failure ??= err));
  const closed = once(out, 'close').catch(() => undefined);
  const write = async (text: string) => {
    if (failure) throw failure;
    digest.update(text);
    if (!out.write(text)) await once(out, 'drain');
  };
  try {
    await write(archiveHeaderLine({ origin: o.origin, start: r.start, end: r.end, before: o.before.toISOString(), frontier_start: r.frontierStart, checkpoint: r.note }));
    for (let from = r.start; from < r.end; from += PAGE) {
      for (const row of await auditEventsInRange(from, Math.min(r.end, from + PAGE), o.knex)) {
        if (row.leaf_index !== tree.size) throw new ArchiveError(`leaf ${tree.size} is missing from the database: run npm run audit -- verify; nothing archived`);
        const leaf = recomputedLeafHash(row);
        if (leaf !== row.leaf_hash) throw new ArchiveError(`event ${row.id} (leaf ${row.leaf_index}) does not hash to its leaf hash: run npm run audit -- verify; nothing archived`);
        tree.append(Buffer.from(leaf, 'base64'));
        await write(`${JSON.stringify(auditEventView(row))}\n`);
      }
    }
    if (tree.size !== r.end) throw new ArchiveError(`leaf ${tree.size} is missing from the database: run npm run audit -- verify; nothing archived`);
    if (!tree.root(r.end).equals(r.root)) throw new ArchiveError(`the events up to leaf ${r.end - 1} do not make checkpoint ${r.end}'s signed root: run npm run audit -- verify; nothing archived`);
    out.end();
    await finished(out);
  } catch (err) {
    // Closed before the caller removes the file, so that no late open or write makes it again.
    out.destroy();
    await closed;
    throw err;
  }
  const handle = await open(file, constants.O_RDONLY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
  return digest.digest('hex');
}

async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, constants.O_RDONLY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
