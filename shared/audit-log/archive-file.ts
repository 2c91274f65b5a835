/**
 * The archive file `npm run audit -- export --before` writes, and its check. JSON lines:
 *
 *   {"type":"audit_archive","version":1,"origin":..,"start":S,"end":E,"before":..,"frontier_start":[..],"checkpoint":..}
 *   one event per line for leaves S .. E-1, in leaf order, as the API and `export` list them
 *
 * `frontier_start` is the frontier of the tree of the S leaves before the archive (base64 hashes of its complete
 * subtrees, largest first; empty when S = 0) and `checkpoint` the signed note of the tree of E leaves. The file is
 * checkable on its own with the checkpoint key: each event must hash to its leaf hash, and the frontier followed by
 * those leaves must give the signed root at E. Its frontier at E is then what the database keeps of the range, and
 * every later checkpoint is checked from it.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { auditLeafHash, type HashedAuditEvent } from '../audit/canonical.js';
import { CheckpointNoteError, openCheckpoint } from './checkpoint-note.js';
import { MerkleLog } from './tree.js';
import type { VerifyProblem } from './verify.js';

export interface ArchiveHeader {
  type: 'audit_archive';
  version: 1;
  origin: string;
  start: number;
  end: number;
  /** The cut-off the operator gave (ISO 8601): every archived event is older. */
  before: string;
  frontier_start: string[];
  checkpoint: string;
}

export function archiveHeaderLine(h: Omit<ArchiveHeader, 'type' | 'version'>): string {
  return `${JSON.stringify({ type: 'audit_archive', version: 1, ...h })}\n`;
}

export interface ArchiveCheck {
  file: string;
  header?: ArchiveHeader;
  /** The tree of the archive's end: from frontier_start and the archived events' recomputed leaves. */
  tree?: MerkleLog;
  /** SHA-256 (hex) of the file's bytes. */
  sha256: string;
  problems: VerifyProblem[];
}

const isBase64Hash = (v: unknown): v is string => typeof v === 'string' && Buffer.from(v, 'base64').length === 32;
const isIndex = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

function parseHeader(line: string | undefined): ArchiveHeader | undefined {
  try {
    const h = JSON.parse(line ?? '') as Partial<ArchiveHeader>;
    const ok =
      h.type === 'audit_archive' &&
      h.version === 1 &&
      typeof h.origin === 'string' &&
      isIndex(h.start) &&
      isIndex(h.end) &&
      h.start < h.end &&
      typeof h.before === 'string' &&
      Array.isArray(h.frontier_start) &&
      h.frontier_start.every(isBase64Hash) &&
      typeof h.checkpoint === 'string';
    return ok ? (h as ArchiveHeader) : undefined;
  } catch {
    return undefined;
  }
}

/** Checks an archive file on its own against the checkpoint key; problems name the event, leaf or file at fault. */
export async function checkArchiveFile(file: string, publicKeySpki: Uint8Array, origin: string): Promise<ArchiveCheck> {
  const digest = createHash('sha256');
  const input = createReadStream(file);
  input.on('data', (chunk) => digest.update(chunk));
  const lines = createInterface({ input, crlfDelay: Infinity });
  const problems: VerifyProblem[] = [];
  const subject = `archive ${file}`;
  let header: ArchiveHeader | undefined;
  let tree: MerkleLog | undefined;
  let n = 0;
  // The events could not all be read in order: nothing more can be said of the tree.
  let broken = false;
  for await (const line of lines) {
    n += 1;
    if (n === 1) {
      header = parseHeader(line);
      if (!header) problems.push({ subject, message: 'its first line is not an audit archive header' });
      else if (header.origin !== origin) problems.push({ subject, message: `it archives the log ${header.origin}, not ${origin}` });
      else {
        try {
          tree = MerkleLog.fromFrontier(header.start, header.frontier_start.map((h) => Buffer.from(h, 'base64')));
        } catch (err) {
          problems.push({ subject, message: `frontier_start: ${(err as Error).message}` });
        }
      }
      if (!tree) break;
      continue;
    }
    if (!tree || !header) break;
    let event: HashedAuditEvent & { leaf_index: number; leaf_hash: string };
    try {
      event = JSON.parse(line) as typeof event;
      if (!isIndex(event.leaf_index)) throw new Error('no leaf_index');
    } catch {
      problems.push({ subject: `${subject} line ${n}`, message: 'not an event' });
      broken = true;
      break;
    }
    if (event.leaf_index !== tree.size) {
      problems.push({ subject: `${subject} line ${n}`, message: `leaf ${event.leaf_index} where leaf ${tree.size} was due: an event was removed, added or reordered` });
      broken = true;
      break;
    }
    const recomputed = auditLeafHash(event);
    if (recomputed.toString('base64') !== event.leaf_hash) {
      problems.push({ subject: `event ${event.id} (leaf ${event.leaf_index}) in ${subject}`, message: `its content (${event.action} at ${event.time}) does not hash to its recorded leaf hash: it was changed after it was recorded` });
    }
    tree.append(recomputed);
  }
  input.destroy();
  const sha256 = digest.digest('hex');
  if (!header || !tree || broken) return { file, header, sha256, problems };

  if (tree.size !== header.end) problems.push({ subject, message: `it holds leaves ${header.start} to ${tree.size - 1}; its header says up to ${header.end - 1}: events are missing` });
  try {
    const signed = openCheckpoint(header.checkpoint, publicKeySpki, origin);
    if (signed.treeSize !== header.end) problems.push({ subject, message: `its checkpoint signs ${signed.treeSize} events, not ${header.end}` });
    else if (tree.size === header.end && !tree.root(header.end).equals(signed.root)) {
      problems.push({ subject, message: 'its events do not make the signed root of its checkpoint: an event (or frontier_start) was changed' });
    }
  } catch (err) {
    problems.push({ subject, message: `its checkpoint: ${err instanceof CheckpointNoteError ? err.message : (err as Error).message}` });
  }
  return { file, header, tree, sha256, problems };
}
