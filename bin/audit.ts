/**
 * Operator CLI for the audit log: `npm run audit -- <command>`.
 *
 *   export [--out FILE]     every event (all organisations) as JSON lines, in leaf order, as the API lists them
 *   verify [--public-key FILE] [--rpc URL]
 *                           recompute the tree from the database, check every checkpoint's signature and root,
 *                           their consistency, and the anchored roots against the chain; names what is wrong
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
  export [--out FILE]                      every event as JSON lines (default: standard output)
  verify [--public-key FILE] [--rpc URL]   check the whole log; prints what is wrong, if anything`;

const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

function spkiFrom(file: string): Uint8Array {
  const bytes = readFileSync(file);
  const text = bytes.toString('utf8');
  const key = text.includes('-----BEGIN') ? createPublicKey(text) : createPublicKey({ key: bytes, format: 'der', type: 'spki' });
  return key.export({ format: 'der', type: 'spki' });
}

async function exportEvents(knex: Knex, out: NodeJS.WritableStream): Promise<number> {
  const { auditEventsInRange, auditLogSize } = await import('../shared/db/repositories/audit-events.js');
  const { auditEventView } = await import('../shared/audit/view.js');
  const size = await auditLogSize(knex);
  for (let from = 0; from < size; from += 5000) {
    for (const row of await auditEventsInRange(from, Math.min(size, from + 5000), knex)) {
      if (!out.write(`${JSON.stringify(auditEventView(row))}\n`)) await once(out, 'drain');
    }
  }
  return size;
}

async function verify(knex: Knex, config: Config, values: { 'public-key'?: string; rpc?: string }): Promise<number> {
  const [{ verifyAuditLog }, { ChainConnection }, { createKeyVault }] = await Promise.all([
    import('../shared/audit-log/verify.js'),
    import('../shared/chain/provider.js'),
    import('../shared/vault/index.js'),
  ]);
  const spki = values['public-key'] ? spkiFrom(values['public-key']) : (await createKeyVault(config).getKey(config.audit.keyName)).publicKeySpki;
  const rpc = values.rpc ?? config.chainRpcUrl;
  const chain = rpc ? new ChainConnection({ url: rpc, expectedChainId: config.chainId }) : undefined;
  try {
    const report = await verifyAuditLog({ knex, publicKeySpki: spki, origin: config.audit.origin, chain, baseUrl: config.baseUrl });
    const unchecked = report.anchorsUnchecked ? `, ${report.anchorsUnchecked} anchored but not checked (${report.chainNote})` : '';
    const anchors = `${report.anchorsChecked} anchored roots checked on chain, ${report.anchorsPending} waiting for their anchor${unchecked}`;
    if (report.problems.length === 0) {
      process.stdout.write(`audit log OK: ${report.events} events, ${report.checkpoints} signed checkpoints consistent with them and with each other; ${anchors}\n`);
      return EXIT.ok;
    }
    process.stdout.write(`audit log FAILED: ${report.problems.length} problem(s) in ${report.events} events and ${report.checkpoints} checkpoints; ${anchors}\n`);
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
  let values: { out?: string; 'public-key'?: string; rpc?: string };
  try {
    if (name !== 'export' && name !== 'verify') throw new TypeError(`unknown command "${name}"`);
    const options: ParseArgsConfig['options'] = name === 'export' ? { out: { type: 'string' } } : { 'public-key': { type: 'string' }, rpc: { type: 'string' } };
    values = parseArgs({ args, options, allowPositionals: false }).values as typeof values;
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
