/**
 * The ocsp role as ocsp/main.ts wires it (database issuers and statuses, LISTEN/NOTIFY, OCSP server, CRL
 * host), checked with `openssl ocsp` and plain HTTP. Revocations come from another database connection,
 * so the responder can only learn of them through the notification.
 */
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { databaseStatusLookup, loadOcspIssuers } from '../../ocsp/database-issuers.js';
import { startOcspRole, type OcspRole } from '../../ocsp/role.js';
import { Certificate } from '../../shared/db/repositories/certificates.js';
import { Crl } from '../../shared/db/repositories/crls.js';
import { createLogger } from '../../shared/logger.js';
import { initPki, type InitPkiResult } from '../../shared/pki/init.js';
import { revokeCertificate } from '../../shared/pki/revocation.js';
import { parseCrl } from '../../shared/pki/crl.js';
import { InProcessPkiEvents, PostgresPkiEvents, type PkiNotice } from '../../shared/pki/pki-events.js';
import { makeOpensslChain } from '../support/openssl-chain.js';
import { openssl, startTrust, writePems, type TrustFixture } from './support.js';

const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent', 'test-ocsp');

/** Resolves with the first notice `events` delivers that `match` accepts. */
async function nextNotice(events: PostgresPkiEvents, match: (n: PkiNotice) => boolean): Promise<{ heard: Promise<PkiNotice>; stop: () => void }> {
  let resolve!: (n: PkiNotice) => void;
  const heard = new Promise<PkiNotice>((r) => (resolve = r));
  const stop = await events.subscribe((n) => {
    if (match(n)) resolve(n);
  });
  return { heard, stop };
}

describe('trust: ocsp role (ocsp/main wiring) on Postgres with openssl', function () {
  let t: TrustFixture;
  let chain: InitPkiResult;
  let events: PostgresPkiEvents;
  let role: OcspRole;
  let other: Knex;
  let otherEvents: PostgresPkiEvents;
  let files: Record<string, string>;
  const dir = mkdtempSync(path.join(tmpdir(), 'trust-ocsp-'));

  before(async function () {
    // Front processes answer OCSP here, as in production (two, to show they share the port and the notices).
    t = await startTrust({ OCSP_PROCESSES: '2' });
    chain = await initPki(t.deps);
    events = new PostgresPkiEvents(t.db.knex, t.db.url, logger);
    role = await startOcspRole(t.config, t.db.knex, t.vault, logger, { events, host: '127.0.0.1' });
    // The operator's side: its own pool and its own notifier, as `npm run pki -- revoke` would have.
    other = knexFactory({ client: 'pg', connection: t.db.url, pool: { min: 0, max: 2 } });
    otherEvents = new PostgresPkiEvents(other, t.db.url);
    files = writePems(dir, { root: chain.root, subCa: chain.subCa, leaf: chain.leaf });
  });

  after(async function () {
    await role?.();
    await events?.close();
    await otherEvents?.close();
    await other?.destroy();
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function ask(issuer: string, cert: string, extra: string[] = []) {
    return openssl(['ocsp', '-no_nonce', '-issuer', issuer, '-cert', cert, '-url', `http://127.0.0.1:${role.ocspPort}/`, '-CAfile', files.root!, ...extra], dir);
  }

  it('answers good for the leaf, verified by openssl', async function () {
    const r = await ask(files.subCa!, files.leaf!);
    expect(r.code, r.output).to.equal(0);
    expect(r.output).to.include('Response verify OK');
    expect(r.stdout).to.match(/leaf\.pem: good/);
  });

  it("answers the sub-CA's own status, signed by the root", async function () {
    const r = await ask(files.root!, files.subCa!);
    expect(r.output).to.include('Response verify OK');
    expect(r.stdout).to.match(/subCa\.pem: good/);
  });

  it('answers good for a serial it never issued (spec), signed by the sub-CA', async function () {
    const r = await openssl(['ocsp', '-no_nonce', '-issuer', files.subCa!, '-serial', '0x1234abcd', '-url', `http://127.0.0.1:${role.ocspPort}/`, '-CAfile', files.root!], dir);
    expect(r.output).to.include('Response verify OK');
    expect(r.stdout).to.match(/0x1234abcd: good/i);
  });

  it('answers revoked with the reason after a revocation made on another connection, without a restart', async function () {
    // The good answer is cached now (no nonce): only the notification can replace it.
    expect((await ask(files.subCa!, files.leaf!)).stdout).to.match(/leaf\.pem: good/);
    const { heard, stop } = await nextNotice(events, (n) => n.kind === 'revoked');
    const result = await revokeCertificate({ knex: other, vault: t.vault, config: t.config, events: otherEvents }, chain.leaf.serial, 'keyCompromise');
    await heard; // delivered to the role's listener first (it subscribed first)
    stop();

    const r = await ask(files.subCa!, files.leaf!);
    expect(r.code, r.output).to.equal(0);
    expect(r.output).to.include('Response verify OK');
    expect(r.stdout).to.match(/leaf\.pem: revoked/);
    expect(r.stdout).to.include('Reason: keyCompromise');
    const at = result.certificate.revoked_at!;
    const expected = `Revocation Time: ${at.toUTCString().slice(8, 11)} ${at.getUTCDate()} ${at.toISOString().slice(11, 19)} ${at.getUTCFullYear()} GMT`;
    expect(r.stdout.replace(/ +/g, ' ')).to.include(expected);
  });

  it('serves leaf.crl with the spec headers, ETag and Last-Modified, and 304 on If-None-Match', async function () {
    const base = `http://127.0.0.1:${role.crlPort}`;
    const res = await fetch(`${base}/leaf.crl`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/pkix-crl');
    expect(res.headers.get('cache-control')).to.equal('public, max-age=3600');
    const etag = res.headers.get('etag')!;
    expect(etag).to.match(/^"[0-9a-f]{40}"$/);
    const body = new Uint8Array(await res.arrayBuffer());
    const facts = parseCrl(body);
    // The newest CRL: the one the revocation above issued, with the leaf in it.
    const newest = (await Crl.query(t.db.knex).where({ issuer_id: chain.subCa.id }).orderBy('crl_number', 'desc').first())!;
    expect(Buffer.from(body).equals(Buffer.from(newest.der))).to.equal(true);
    expect(facts.revoked.map((e) => e.serialHex)).to.deep.equal([chain.leaf.serial]);
    expect(res.headers.get('last-modified')).to.equal(facts.thisUpdate.toUTCString());

    const again = await fetch(`${base}/leaf.crl`, { headers: { 'If-None-Match': etag } });
    expect(again.status).to.equal(304);
    expect(again.headers.get('etag')).to.equal(etag);
    expect((await again.arrayBuffer()).byteLength).to.equal(0);

    const sub = await fetch(`${base}/sub-ca.crl`);
    expect(sub.status).to.equal(200);
    expect(sub.headers.get('content-type')).to.equal('application/pkix-crl');
    expect(parseCrl(new Uint8Array(await sub.arrayBuffer())).issuer).to.equal(chain.root.subject);
  });

  it('serves root-ca.cer and sub-ca.cer as DER pkix-cert; 404 JSON and 405 otherwise', async function () {
    const base = `http://127.0.0.1:${role.crlPort}`;
    for (const [name, cert] of [['root-ca.cer', chain.root], ['sub-ca.cer', chain.subCa]] as const) {
      const res = await fetch(`${base}/${name}`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('application/pkix-cert');
      expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(cert.der))).to.equal(true);
    }
    const missing = await fetch(`${base}/other.crl`);
    expect(missing.status).to.equal(404);
    expect(missing.headers.get('content-type')).to.equal('application/json');
    expect((await missing.json()).error.code).to.equal('not_found');
    const post = await fetch(`${base}/leaf.crl`, { method: 'POST', body: 'x' });
    expect(post.status).to.equal(405);
  });

  it('reloads its CAs when a new sub-CA is issued, and answers for the new leaf', async function () {
    const { heard, stop } = await nextNotice(events, (n) => n.kind === 'issued' && n.role === 'sub_ca');
    await revokeCertificate({ knex: other, vault: t.vault, config: t.config, events: otherEvents }, chain.subCa.serial, 'superseded');
    const renewed = await initPki({ knex: other, vault: t.vault, config: t.config, events: otherEvents });
    expect(renewed.issued.map((c) => c.role)).to.deep.equal(['sub_ca', 'leaf', 'tsa']);
    await heard;
    stop();
    await role.reloads();

    const f = writePems(dir, { subCa2: renewed.subCa, leaf2: renewed.leaf });
    const r = await ask(f.subCa2!, f.leaf2!);
    expect(r.output).to.include('Response verify OK');
    expect(r.stdout).to.match(/leaf2\.pem: good/);
    // The root's cached "good" for the old sub-CA was dropped by the notice: now revoked.
    const s = await ask(files.root!, files.subCa!);
    expect(s.stdout).to.match(/subCa\.pem: revoked/);
    expect(s.stdout).to.include('Reason: superseded');
    expect(await Certificate.query(t.db.knex).where({ role: 'sub_ca' }).resultSize()).to.equal(2);
  });
});

describe('trust: OCSP status from the database', function () {
  let t: TrustFixture;

  before(async function () {
    t = await startTrust();
  });

  after(async function () {
    await t?.close();
  });

  it('good when issued, revoked with time and reason, OCSP_UNISSUED_STATUS for serials never issued', async function () {
    const chain = await initPki(t.deps);
    const other = await initPki(t.deps); // nothing new
    expect(other.issued).to.deep.equal([]);
    const issuers = await loadOcspIssuers(t.db.knex, t.vault);
    expect(issuers.map((i) => i.subject).sort()).to.deep.equal([chain.root.subject, chain.subCa.subject].sort());
    const subCa = issuers.find((i) => i.subject === chain.subCa.subject)!;
    const root = issuers.find((i) => i.subject === chain.root.subject)!;

    const unknown = databaseStatusLookup(t.db.knex, 'unknown');
    const good = databaseStatusLookup(t.db.knex, 'good');
    expect(await unknown(subCa, chain.leaf.serial)).to.deep.equal({ status: 'good' });
    expect(await unknown(subCa, '1234')).to.deep.equal({ status: 'unknown' });
    expect(await good(subCa, '1234')).to.deep.equal({ status: 'good' });
    // A serial issued by another CA is not this CA's.
    expect(await unknown(root, chain.leaf.serial)).to.deep.equal({ status: 'unknown' });

    const revoked = await revokeCertificate({ ...t.deps, events: new InProcessPkiEvents() }, chain.leaf.serial, 'unspecified');
    // RFC 5280: "unspecified" is sent as no reason at all.
    expect(await good(subCa, chain.leaf.serial)).to.deep.equal({ status: 'revoked', revokedAt: revoked.certificate.revoked_at });
  });
});

describe('trust: ocsp role started before the PKI is set up', function () {
  let t: TrustFixture;
  let events: PostgresPkiEvents;
  let role: OcspRole;

  before(async function () {
    t = await startTrust();
    events = new PostgresPkiEvents(t.db.knex, t.db.url, logger);
    role = await startOcspRole(t.config, t.db.knex, t.vault, logger, { events, host: '127.0.0.1' });
  });

  after(async function () {
    await role?.();
    await events?.close();
    await t?.close();
  });

  it('answers unauthorized, then good once init has issued the CAs', async function () {
    const dir = mkdtempSync(path.join(tmpdir(), 'trust-ocsp-early-'));
    const foreign = await makeOpensslChain({ days: 1 });
    const early = await openssl(['ocsp', '-no_nonce', '-issuer', foreign.files.subCa, '-cert', foreign.files.leaf, '-url', `http://127.0.0.1:${role.ocspPort}/`], dir);
    expect(early.output).to.include('Responder Error: unauthorized (6)');

    const { heard, stop } = await nextNotice(events, (n) => n.kind === 'issued' && n.role === 'sub_ca');
    const chain = await initPki({ ...t.deps, events });
    await heard;
    stop();
    await role.reloads();
    const f = writePems(dir, { root: chain.root, subCa: chain.subCa, leaf: chain.leaf });
    const r = await openssl(['ocsp', '-no_nonce', '-issuer', f.subCa!, '-cert', f.leaf!, '-url', `http://127.0.0.1:${role.ocspPort}/`, '-CAfile', f.root!], dir);
    expect(r.output).to.include('Response verify OK');
    expect(r.stdout).to.match(/leaf\.pem: good/);
    for (const d of [dir, foreign.dir]) rmSync(d, { recursive: true, force: true });
  });
});
