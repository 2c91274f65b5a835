/**
 * Operator CLI for the certificate authority: `npm run pki -- <command>`.
 *
 * Exit codes: 0 done; 1 the operation failed (nothing to act on, vault or database unavailable, ...);
 * 2 usage or configuration error. Prints serials, subjects and fingerprints, never key material.
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../shared/config.js';
import { ServiceError } from '../shared/errors.js';
import type { Knex } from '../shared/db/index.js';
import type { Certificate } from '../shared/db/repositories/certificates.js';
import type { CrlOutcome } from '../shared/pki/crl-publisher.js';
import { CRL_REASON_NAMES, isCrlReason, type CrlReason } from '../shared/domain/crl-reasons.js';
import type { PkiEvents } from '../shared/pki/pki-events.js';
import type { RequestedSubject } from '../shared/db/repositories/external-certificates.js';

/** RFC 5280 reasons one can revoke with (removeFromCRL belongs to delta CRLs only). */
const REASONS = CRL_REASON_NAMES.filter((r) => r !== 'removeFromCRL').join(', ');

const USAGE = `usage: npm run pki -- <command>

commands:
  init                              create the vault keys if missing and issue root CA, sub-CA, leaf and
                                    TSA certificate where no valid one exists; publish CRLs and CA certificates
  list [--org <id>] [--json]        every certificate (or one organisation's): role, organisation, serial,
                                    subject, not_after, status
  rotate-leaf                       issue a new service leaf certificate (organisations sign with their own)
  rotate-org <organisation-id>      issue an organisation a new signing certificate and key (it signs from now on)
  revoke-org <organisation-id> --reason <reason>
                                    revoke the organisation's current signing certificate (others are untouched)
  rotate-tsa                        issue a new time-stamping certificate (the TSA signs with it from now on)
  rotate-ocsp [--wait <seconds>]    ask the scheduler for a new delegated OCSP responder certificate now (the
                                    OCSP role signs with it at once) and wait for it (default 15 s)
  revoke <serial> --reason <reason> revoke a certificate; CRL reissued and OCSP responders told at once
                                    reasons: ${REASONS}
  publish-crls                      issue leaf.crl and sub-ca.crl now

  certificates from an external CA (e.g. one on the C2PA Trust List), keys in the vault:
  external-request <organisation-id> --cn <CN> --o <O> --c <C> [--ou <OU>] [--l <L>] [--st <ST>]
                                    create a new vault key and print the PKCS#10 request (CSR) to send the CA
  external-chain <organisation-id> <request-id> --chain <file.pem>
                                    check the chain the CA issued (leaf first, then intermediates) and sign
                                    with it from now on; refused with chain_key_mismatch, chain_expired,
                                    chain_profile or chain_untrusted (anchors: C2PA Trust List, TRUST_ANCHORS_FILE)
  external-list <organisation-id> [--json]
                                    the organisation's requests, pending and past
  external-revoked <organisation-id> <request-id> --reason <reason>
                                    record that the CA revoked the certificate: signing with it stops at once

Without DATABASE_URL the embedded database in DATA_DIR is used: stop \`npm start\` first.`;

class UsageError extends Error {}

const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

function out(line = ''): void {
  process.stdout.write(`${line}\n`);
}

function iso(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n');
}

function describeCrl(c: CrlOutcome): string {
  if (c.action === 'no_issuer') return `${c.name}: not issued (no current CA)`;
  const verb = c.action === 'published' ? 'issued' : 'kept';
  return `${c.name}: ${verb} CRL number ${c.crlNumber}, next update ${iso(c.nextUpdate!)}${c.revokedCount !== undefined ? `, ${c.revokedCount} revoked` : ''}`;
}

function describeCertificate(c: Certificate, verb: string): string {
  return `${c.role.padEnd(6)}  ${c.serial}  ${verb}  ${c.subject}  (valid until ${iso(c.not_after)})`;
}

type Command =
  | { name: 'init' | 'rotate-leaf' | 'rotate-tsa' | 'publish-crls' }
  | { name: 'list'; json: boolean; orgId?: string }
  | { name: 'rotate-org'; orgId: string }
  | { name: 'rotate-ocsp'; waitSeconds: number }
  | { name: 'revoke'; serial: string; reason: CrlReason }
  | { name: 'revoke-org'; orgId: string; reason: CrlReason }
  | { name: 'external-request'; orgId: string; subject: RequestedSubject }
  | { name: 'external-chain'; orgId: string; requestId: string; chainFile: string }
  | { name: 'external-list'; orgId: string; json: boolean }
  | { name: 'external-revoked'; orgId: string; requestId: string; reason: CrlReason };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function orgIdArgument(value: string | undefined, command: string): string {
  if (value === undefined || !UUID.test(value)) throw new UsageError(`${command} needs an organisation id (a UUID, as \`list\` shows it)`);
  return value.toLowerCase();
}

function reasonOption(value: string | undefined, command: string): CrlReason {
  if (value === undefined) throw new UsageError(`${command} needs --reason, one of: ${REASONS}`);
  if (!isCrlReason(value) || value === 'removeFromCRL') throw new UsageError(`"${value}" is not a revocation reason; use one of: ${REASONS}`);
  return value;
}

function requestIdArgument(value: string | undefined, command: string): string {
  if (value === undefined || !UUID.test(value)) throw new UsageError(`${command} needs a request id (a UUID, as \`external-list\` shows it)`);
  return value.toLowerCase();
}

function noArguments(args: string[]): void {
  if (args.length) throw new UsageError(`unexpected argument "${args[0]}"`);
}

/** Checks the command line before anything is loaded or opened, so mistakes fail fast. */
function parseCommand(command: string, args: string[]): Command {
  try {
    switch (command) {
      case 'init':
      case 'rotate-leaf':
      case 'rotate-tsa':
      case 'publish-crls':
        noArguments(args);
        return { name: command };
      case 'list': {
        const { values } = parseArgs({ args, options: { json: { type: 'boolean' }, org: { type: 'string' } }, allowPositionals: false });
        return { name: 'list', json: values.json === true, orgId: values.org === undefined ? undefined : orgIdArgument(values.org, 'list --org') };
      }
      case 'rotate-ocsp': {
        const { values } = parseArgs({ args, options: { wait: { type: 'string' } }, allowPositionals: false });
        const waitSeconds = values.wait === undefined ? 15 : Number(values.wait);
        if (!Number.isInteger(waitSeconds) || waitSeconds < 1 || waitSeconds > 300) throw new UsageError('--wait must be a whole number of seconds from 1 to 300');
        return { name: 'rotate-ocsp', waitSeconds };
      }
      case 'rotate-org': {
        const { positionals } = parseArgs({ args, allowPositionals: true });
        if (positionals.length !== 1) throw new UsageError('rotate-org needs exactly one organisation id');
        return { name: 'rotate-org', orgId: orgIdArgument(positionals[0], 'rotate-org') };
      }
      case 'revoke': {
        const { values, positionals } = parseArgs({ args, options: { reason: { type: 'string' } }, allowPositionals: true });
        if (positionals.length !== 1) throw new UsageError('revoke needs exactly one serial (hex, as `list` shows it)');
        return { name: 'revoke', serial: positionals[0]!, reason: reasonOption(values.reason, 'revoke') };
      }
      case 'revoke-org': {
        const { values, positionals } = parseArgs({ args, options: { reason: { type: 'string' } }, allowPositionals: true });
        if (positionals.length !== 1) throw new UsageError('revoke-org needs exactly one organisation id');
        return { name: 'revoke-org', orgId: orgIdArgument(positionals[0], 'revoke-org'), reason: reasonOption(values.reason, 'revoke-org') };
      }
      case 'external-request': {
        const name = { type: 'string' } as const;
        const { values, positionals } = parseArgs({ args, options: { cn: name, o: name, c: name, ou: name, l: name, st: name }, allowPositionals: true });
        if (positionals.length !== 1) throw new UsageError('external-request needs exactly one organisation id');
        if (!values.cn || !values.o || !values.c) throw new UsageError('external-request needs --cn, --o and --c');
        if (!/^[A-Za-z]{2}$/.test(values.c)) throw new UsageError('--c must be two letters (ISO 3166)');
        const subject: RequestedSubject = { CN: values.cn, O: values.o, C: values.c.toUpperCase() };
        if (values.ou) subject.OU = values.ou;
        if (values.l) subject.L = values.l;
        if (values.st) subject.ST = values.st;
        return { name: 'external-request', orgId: orgIdArgument(positionals[0], 'external-request'), subject };
      }
      case 'external-chain': {
        const { values, positionals } = parseArgs({ args, options: { chain: { type: 'string' } }, allowPositionals: true });
        if (positionals.length !== 2) throw new UsageError('external-chain needs an organisation id and a request id');
        if (!values.chain) throw new UsageError('external-chain needs --chain <file.pem>');
        return { name: 'external-chain', orgId: orgIdArgument(positionals[0], 'external-chain'), requestId: requestIdArgument(positionals[1], 'external-chain'), chainFile: values.chain };
      }
      case 'external-list': {
        const { values, positionals } = parseArgs({ args, options: { json: { type: 'boolean' } }, allowPositionals: true });
        if (positionals.length !== 1) throw new UsageError('external-list needs exactly one organisation id');
        return { name: 'external-list', orgId: orgIdArgument(positionals[0], 'external-list'), json: values.json === true };
      }
      case 'external-revoked': {
        const { values, positionals } = parseArgs({ args, options: { reason: { type: 'string' } }, allowPositionals: true });
        if (positionals.length !== 2) throw new UsageError('external-revoked needs an organisation id and a request id');
        return {
          name: 'external-revoked',
          orgId: orgIdArgument(positionals[0], 'external-revoked'),
          requestId: requestIdArgument(positionals[1], 'external-revoked'),
          reason: reasonOption(values.reason, 'external-revoked'),
        };
      }
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (err) {
    // parseArgs: unknown options, missing option values.
    if (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS')) throw new UsageError(err.message);
    throw err;
  }
}

async function run(command: Command, config: Config, knex: Knex): Promise<void> {
  // Loaded only for a valid command line: the vault drivers (Azure SDK) take a while to import.
  const [setup, listing, rotation, revocation, errors, orgSigning, publisher, events, files, vaults, external, externalRows, trust, requests, certificates] = await Promise.all([
    import('../shared/pki/init.js'),
    import('../shared/pki/certificate-listing.js'),
    import('../shared/pki/rotation.js'),
    import('../shared/pki/revocation.js'),
    import('../shared/pki/errors.js'),
    import('../shared/pki/org-signing.js'),
    import('../shared/pki/crl-publisher.js'),
    import('../shared/pki/pki-events.js'),
    import('../shared/pki/publication-files.js'),
    import('../shared/vault/index.js'),
    import('../shared/pki/external-certificates.js'),
    import('../shared/db/repositories/external-certificates.js'),
    import('../shared/trust/store.js'),
    import('../shared/pki/certificate-requests.js'),
    import('../shared/db/repositories/certificates.js'),
  ]);
  const deps = { knex, vault: vaults.createKeyVault(config), config };
  /** Runs `fn` with the notifier that tells running OCSP responders (Postgres NOTIFY). */
  const withEvents = async (fn: (e: PkiEvents) => Promise<void>) => {
    const e = events.createPkiEvents(config, knex);
    try {
      await fn(e);
    } finally {
      await e.close();
    }
  };
  switch (command.name) {
    case 'init':
      return withEvents(async (e) => {
        const result = await setup.initPki({ ...deps, events: e });
        const issued = new Set(result.issued.map((c) => c.id));
        for (const c of [result.root, result.subCa, result.leaf, result.tsa]) out(describeCertificate(c, issued.has(c.id) ? 'issued' : 'kept  '));
        for (const c of result.crls) out(describeCrl(c));
        out(`files: ${files.publicationDir(config.dataDir)}`);
      });
    case 'list': {
      const rows = await listing.listCertificates(deps, { orgId: command.orgId });
      if (command.json) return out(JSON.stringify(rows, null, 2));
      if (rows.length === 0) return out(command.orgId ? 'no certificates for this organisation' : 'no certificates: run `npm run pki -- init`');
      return out(
        table([
          ['ROLE', 'ORGANISATION', 'SERIAL', 'SUBJECT', 'NOT_AFTER', 'STATUS'],
          ...rows.map((r) => [r.role, r.org_id ?? '-', r.serial, r.subject, iso(r.not_after), `${r.status}${r.revocation_reason ? ` (${r.revocation_reason})` : ''}${r.current ? ' *current' : ''}`]),
        ]),
      );
    }
    case 'rotate-org':
      return withEvents(async (e) => out(describeCertificate(await orgSigning.rotateOrgCertificate({ ...deps, events: e }, command.orgId), 'issued')));
    case 'revoke-org':
      return withEvents(async (e) => {
        const state = await orgSigning.orgSigningState(knex, command.orgId);
        if (state.state !== 'ready') throw new errors.PkiError(`organisation ${command.orgId} has no valid signing certificate to revoke (${state.state})`, 'not_found');
        const result = await revocation.revokeCertificate({ ...deps, events: e }, state.chain.leaf.serial, command.reason);
        const c = result.certificate;
        out(`leaf ${c.serial} (${c.subject}) revoked (${c.revocation_reason}, ${iso(c.revoked_at!)}); the organisation signs again after rotate-org`);
        out(describeCrl(result.crl));
      });
    case 'rotate-leaf':
      return withEvents(async (e) => out(describeCertificate(await rotation.rotateLeaf({ ...deps, events: e }), 'issued')));
    case 'rotate-tsa':
      return withEvents(async (e) => out(describeCertificate(await rotation.rotateTsa({ ...deps, events: e }), 'issued')));
    case 'rotate-ocsp': {
      // The scheduler issues it (the one door for CA keys), and tells the OCSP role.
      const outcome = await requests.obtainOcspResponderRotation(knex, command.waitSeconds * 1000);
      if (outcome.status === 'pending') throw new ServiceError('unavailable', 'issuance_pending', `request ${outcome.requestId} is not answered within ${command.waitSeconds} s: is the scheduler running? It stands, and the scheduler issues the certificate when it next runs`);
      if (outcome.status === 'failed') throw new ServiceError('unavailable', outcome.code, `the scheduler could not issue it (${outcome.code}): ${outcome.message}`);
      return out(describeCertificate((await certificates.findCertificateById(knex, outcome.certificateId))!, 'issued'));
    }
    case 'revoke':
      return withEvents(async (e) => {
        const result = await revocation.revokeCertificate({ ...deps, events: e }, command.serial, command.reason);
        const c = result.certificate;
        out(`${c.role} ${c.serial} ${result.alreadyRevoked ? 'was already revoked' : 'revoked'} (${c.revocation_reason}, ${iso(c.revoked_at!)})`);
        out(describeCrl(result.crl));
      });
    case 'external-request': {
      const row = await external.createExternalRequestNow(deps, command.orgId, command.subject);
      if (row.status !== 'pending') throw new errors.PkiError(`the key or CSR could not be made: ${row.error_message}`, 'invalid');
      out(`request ${row.id} (key ${row.key_name}): send this CSR to the CA, then run external-chain ${command.orgId} ${row.id} --chain <file.pem>`);
      return out(row.csr_pem!.trimEnd());
    }
    case 'external-chain': {
      const { readFileSync } = await import('node:fs');
      const anchors = trust.processTrustStore(config).claimAnchors;
      const c = await external.acceptExternalChain(deps, command.orgId, command.requestId, readFileSync(command.chainFile, 'utf8'), anchors);
      return out(`accepted: ${c.serial}  ${c.certificate_subject}  issued by ${c.certificate_issuer}  (valid until ${iso(c.not_after)}); the organisation signs with it from now on`);
    }
    case 'external-list': {
      const rows = await externalRows.listExternalRequests(knex, command.orgId, 1000);
      if (command.json) return out(JSON.stringify(rows, null, 2));
      if (rows.length === 0) return out('no external certificate requests for this organisation');
      return out(
        table([
          ['REQUEST', 'STATUS', 'CREATED', 'SERIAL', 'ISSUER', 'NOT_AFTER', 'REVOKED'],
          ...rows.map((r) => [r.id, r.status, iso(r.created_at), r.serial ?? '-', r.certificate_issuer ?? '-', r.not_after ? iso(r.not_after) : '-', r.revoked_at ? `${iso(r.revoked_at)} (${r.revocation_reason})` : '-']),
        ]),
      );
    }
    case 'external-revoked': {
      const r = await external.recordExternalRevocation(knex, command.orgId, command.requestId, command.reason);
      return out(`recorded: ${r.serial} revoked by its CA (${r.revocation_reason}); the organisation no longer signs with it`);
    }
    case 'publish-crls': {
      await publisher.writeCaCertificateFiles(deps);
      for (const c of await publisher.publishCrls(deps)) out(describeCrl(c));
      return out(`files: ${files.publicationDir(config.dataDir)}`);
    }
  }
}

/** Every command an operator runs is an audit event (the command and its arguments hold no key material). */
async function recordCommand(knex: Knex, command: Command, failure?: unknown): Promise<void> {
  const { recordAuditEvent } = await import('../shared/audit/record.js');
  const { name, ...args } = command;
  const orgId = 'orgId' in command && command.orgId ? command.orgId : null;
  const details: Record<string, unknown> = { args };
  if (failure !== undefined) details.error = failure instanceof Error ? failure.message : String(failure);
  await recordAuditEvent(knex, { action: 'operator.command', actor: { type: 'operator', command: `pki ${name}` }, orgId, target: null, outcome: failure === undefined ? 'success' : 'failure', details });
}

function fail(message: string, code: number): number {
  process.stderr.write(`pki: ${message}\n`);
  return code;
}

/** Errors whose message is the whole story for an operator (no stack trace needed). */
const EXPECTED_ERRORS = new Set(['PkiError', 'RevocationFollowUpError', 'VaultUnavailableError', 'VaultKeyNotFoundError', 'ChainRefusedError', 'ServiceError']);

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    out(USAGE);
    return name ? EXIT.ok : EXIT.usage;
  }
  let command: Command;
  let config: Config;
  try {
    command = parseCommand(name, args);
    config = loadConfig();
  } catch (err) {
    if (err instanceof UsageError) return fail(`${err.message}\n\n${USAGE}`, EXIT.usage);
    if (err instanceof ConfigError) return fail(err.message, EXIT.usage);
    throw err;
  }
  const { openDatabase } = await import('../shared/db/index.js');
  let knex: Knex | undefined;
  try {
    knex = await openDatabase(config);
    await run(command, config, knex);
    await recordCommand(knex, command);
    return EXIT.ok;
  } catch (err) {
    if (knex) await recordCommand(knex, command, err).catch(() => undefined);
    if (err instanceof Error && err.name === 'PkiError' && (err as Error & { code?: string }).code === 'invalid') return fail(err.message, EXIT.usage);
    if (err instanceof Error && EXPECTED_ERRORS.has(err.name)) return fail(err.message, EXIT.failed);
    return fail(`failed: ${err instanceof Error ? err.message : String(err)}`, EXIT.failed);
  } finally {
    await knex?.destroy();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`pki: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(EXIT.failed);
  },
);
