/**
 * Operator CLI for the audit log: `npm run audit -- <command>`.
 *
 *   export [--out FILE]     every event (all organisations) as JSON lines, in leaf order, as the API lists them
 *   export --before TIME --out FILE [--keep] [--public-key FILE]
 *                           archive: the oldest events, up to the largest checkpoint before TIME, to FILE, checked,
 *                           then removed from the database (kept with --keep); see shared/audit-log/archive.ts
 *   verify [--public-key FILE] [--rpc URL] [--archive FILE]...
 *                           recompute the tree from the database (and the archives given), check every checkpoint's
 *                           signature and root, their consistency, and the anchored roots against the chain; names
 *                           what is wrong
 *
 * The checkpoint key is read from the vault (AUDIT_KEY_NAME) unless --public-key gives its SPKI (PEM or DER).
 * Exit codes: 0 done (verify: the log holds); 1 verify found a problem, or the operation failed; 2 usage or
 * configuration error. Without DATABASE_URL the embedded database in DATA_DIR is used: stop `npm start` first.
 */
import { createPublicKey } from 'node:crypto';
import { createWriteStream, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../shared/config.js';
import type { Knex } from '../shared/db/index.js';

const USAGE = `usage: npm run audit -- <command>

commands:
  export [--out FILE]                      every event in the database as JSON lines (default: standard output)
  export --before TIME --out FILE [--keep] [--public-key FILE]
                                           archive the events older than TIME (ISO 8601), up to a checkpoint,
                                           to FILE, and remove them from the database (--keep: leave them)
  verify [--public-key FILE] [--rpc URL] [--archive FILE]...
                                           check the whole log, with archive files if given; prints what is
                                           wrong, if anything`;

const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

function spkiFrom(file: string): Uint8Array {
  const bytes = readFileSync(file);
  const text = bytes.toString('utf8');
  const key = text.includes('-----BEGIN') ? createPublicKey(text) : createPublicKey({ key: bytes, format: 'der', type: 'spki' });
  return key.export({ format: 'der', type: 'spki' });
}

interface Values {
  out?: string;
  before?: string;
  keep?: boolean;
  'public-key'?: string;
  rpc?: string;
  archive?: string[];
}

/** The checkpoint key: --public-key, or the vault's AUDIT_KEY_NAME. */
async function checkpointKey(config: Config, values: Values): Promise<Uint8Array> {
  if (values['public-key']) return spkiFrom(values['public-key']);
  const { createKeyVault } = await import('../shared/vault/index.js');
  return (await createKeyVault(config).getKey(config.audit.keyName)).publicKeySpki;
}

async function exportEvents(knex: Knex, out: NodeJS.WritableStream): Promise<number> {
  const { auditEventsInRange, auditLogSize, latestAuditArchive } = await import('../shared/db/repositories/audit-events.js');
  const { auditEventView } = await import('../shared/audit/view.js');
  const size = await auditLogSize(knex);
  // Archived events are in their archive files only.
  const first = (await latestAuditArchive(knex))?.end_index ?? 0;
  for (let from = first; from < size; from += 5000) {
    for (const row of await auditEventsInRange(from, Math.min(size, from + 5000), knex)) {
      if (!out.write(`${JSON.stringify(auditEventView(row))}\n`)) await once(out, 'drain');
    }
  }
  return size - first;
}

async function archive(knex: Knex, config: Config, values: Values, before: Date): Promise<number> {
  const { archiveAuditLog, ArchiveError } = await import('../shared/audit-log/archive.js');
  const publicKeySpki = await checkpointKey(config, values);
  try {
    const r = await archiveAuditLog({ knex, publicKeySpki, origin: config.audit.origin, before, out: values.out!, keep: values.keep });
    if (!r.archived) {
      process.stderr.write(`nothing archived: ${r.reason}\n`);
      return EXIT.ok;
    }
    const where = r.removed ? 'removed from the database' : 'kept in the database (--keep)';
    process.stderr.write(`archived leaves ${r.start} to ${r.end - 1} (${r.end - r.start} events, up to checkpoint ${r.end}) to ${r.file}, sha256 ${r.sha256}; ${where}\n`);
    return EXIT.ok;
  } catch (err) {
    if (!(err instanceof ArchiveError)) throw err;
    process.stderr.write(`audit: nothing archived: ${err.message}\n`);
    return EXIT.failed;
  }
}

async function verify(knex: Knex, config: Config, values: Values): Promise<number> {
  const [{ verifyAuditLog }, { ChainConnection }] = await Promise.all([import('../shared/audit-log/verify.js'), import('../shared/chain/provider.js')]);
  const spki = await checkpointKey(config, values);
  const rpc = values.rpc ?? config.chainRpcUrl;
  const chain = rpc ? new ChainConnection({ url: rpc, expectedChainId: config.chainId }) : undefined;
  try {
    const report = await verifyAuditLog({ knex, publicKeySpki: spki, origin: config.audit.origin, chain, baseUrl: config.baseUrl, archives: values.archive });
    const unchecked = report.anchorsUnchecked ? `, ${report.anchorsUnchecked} anchored but not checked (${report.chainNote})` : '';
    const anchors = `${report.anchorsChecked} anchored roots checked on chain, ${report.anchorsPending} waiting for their anchor${unchecked}`;
    const inArchives = !report.archived
      ? ''
      : report.archivedFromFiles
        ? `; leaves 0 to ${report.archived - 1} archived (${report.archiveRanges} range(s)), checked from ${report.archiveFiles} archive file(s)`
        : `; leaves 0 to ${report.archived - 1} archived (${report.archiveRanges} range(s)): checked from the frontier recorded at leaf ${report.archived}, their events not rechecked (give their files with --archive), ${report.checkpointsArchived} checkpoint(s) among them checked by signature only`;
    const files = report.archiveFiles && !report.archivedFromFiles ? `; ${report.archiveFiles} archive file(s) checked` : '';
    if (report.problems.length === 0) {
      process.stdout.write(`audit log OK: ${report.events} events, ${report.checkpoints} signed checkpoints consistent with them and with each other; ${anchors}${inArchives}${files}\n`);
      return EXIT.ok;
    }
    process.stdout.write(`audit log FAILED: ${report.problems.length} problem(s) in ${report.events} events and ${report.checkpoints} checkpoints; ${anchors}${inArchives}${files}\n`);
    for (const p of report.problems) process.stdout.write(`  ${p.subject}: ${p.message}\n`);
    return EXIT.failed;
  } finally {
    chain?.destroy();
  }
}

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return name ? EXIT.ok : EXIT.usage;
  }
  let config: Config;
  let values: Values;
  let before: Date | undefined;
  try {
    if (name !== 'export' && name !== 'verify') throw new TypeError(`unknown command "${name}"`);
    const options: ParseArgsConfig['options'] =
      name === 'export'
        ? { out: { type: 'string' }, before: { type: 'string' }, keep: { type: 'boolean' }, 'public-key': { type: 'string' } }
        : { 'public-key': { type: 'string' }, rpc: { type: 'string' }, archive: { type: 'string', multiple: true } };
    values = parseArgs({ args, options, allowPositionals: false }).values as Values;
    if (values.before !== undefined) {
      // A date (midnight UTC) or a date and time with its zone: never a local time open to misreading.
      if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/.test(values.before) || Number.isNaN(Date.parse(values.before))) {
        throw new TypeError(`--before takes an ISO 8601 date or date-time with its zone (2026-01-31, 2026-01-31T12:00:00Z), not "${values.before}"`);
      }
      if (!values.out) throw new TypeError('--before archives to a file: give it with --out');
      before = new Date(values.before);
    } else if (name === 'export' && (values.keep || values['public-key'])) throw new TypeError('--keep and --public-key go with --before');
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError || err instanceof TypeError) {
      process.stderr.write(`audit: ${err.message}\n\n${USAGE}\n`);
      return EXIT.usage;
    }
    throw err;
  }
  const { openDatabase } = await import('../shared/db/index.js');
  const knex = await openDatabase(config);
  try {
    if (name === 'verify') return await verify(knex, config, values);
    if (before) return await archive(knex, config, values, before);
    const out = values.out ? createWriteStream(values.out, { mode: 0o600 }) : process.stdout;
    const count = await exportEvents(knex, out);
    if (values.out) {
      out.end();
      await once(out, 'finish');
      process.stderr.write(`exported ${count} events to ${values.out}\n`);
    }
    return EXIT.ok;
  } catch (err) {
    process.stderr.write(`audit: failed: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT.failed;
  } finally {
    await knex.destroy();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`audit: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(EXIT.failed);
  },
);
