/**
 * Metrics of the trust services, through the ocsp role as ocsp/main.ts wires it on a real Postgres database and
 * the local vault (createKeyVault, so instrumented): mss_ocsp_responses_total, mss_tsa_responses_total,
 * mss_vault_call_seconds for the signatures they cause, and mss_crl_age_seconds. Counters are process-global, so
 * every check compares before and after.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { expect } from 'chai';
import knexFactory from 'knex';
import { pino } from 'pino';
import { databaseStatusLookup, loadOcspIssuers } from '../../ocsp/database-issuers.js';
import { OcspResponder } from '../../ocsp/responder.js';
import { databaseResponseStore } from '../../ocsp/response-store.js';
import { startOcspRole, type OcspRole } from '../../ocsp/role.js';
import { listenServer } from '../../ocsp/http-server.js';
import { createOcspServer } from '../../ocsp/server.js';
import { registerCrlAgeCollector } from '../../shared/pki/crl-age.js';
import { initPki, type InitPkiResult } from '../../shared/pki/init.js';
import { revokeCertificate } from '../../shared/pki/revocation.js';
import { certIdFor, encodeCertId, encodeOcspRequest } from '../../shared/pki/ocsp-request.js';
import { InProcessPkiEvents } from '../../shared/pki/pki-events.js';
import { requestTimestamp } from '../../shared/tsa/client.js';
import { buildTimeStampRequest } from '../../shared/tsa/protocol.js';
import { startTrust, type TrustFixture } from '../trust/support.js';
import { OCSPResponseStatus, responseStatusOf } from '../ocsp/support.js';
import { growth, scrape } from './support.js';

const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

const OCSP = 'mss_ocsp_responses_total';
const TSA = 'mss_tsa_responses_total';
const SIGN_OK = ['mss_vault_call_seconds_count', { vault: 'local', operation: 'sign', result: 'ok' }] as const;
const CRL_AGE = 'mss_crl_age_seconds';
const ocsp = (status: string, cache: 'hit' | 'miss') => [OCSP, { status, cache }] as const;
/** knex's own console output about connections that fail on purpose. */
const quiet = { warn() {}, error() {}, debug() {}, deprecate() {} };

describe('metrics: trust services (ocsp role on Postgres, local vault)', function () {
  let t: TrustFixture;
  let events: InProcessPkiEvents;
  let role: OcspRole;
  let chain: InitPkiResult;

  before(async function () {
    t = await startTrust();
    events = new InProcessPkiEvents();
    // Started before the PKI exists, as a fresh deployment may be.
    role = await startOcspRole(t.config, t.db.knex, t.vault, logger, { events, host: '127.0.0.1' });
  });

  after(async function () {
    await role?.();
    await t?.close();
  });

  const postOcsp = async (der: Uint8Array) => {
    const res = await fetch(`http://127.0.0.1:${role.ocspPort}/`, { method: 'POST', body: new Uint8Array(der), headers: { 'Content-Type': 'application/ocsp-request' } });
    await res.arrayBuffer();
    return res.status;
  };
  const postTsa = async (der: Uint8Array) => {
    const res = await fetch(`http://127.0.0.1:${role.tsaPort}/`, { method: 'POST', body: new Uint8Array(der), headers: { 'Content-Type': 'application/timestamp-query' } });
    await res.arrayBuffer();
    return res.status;
  };
  const subCaId = (serial: string) => certIdFor(new Uint8Array(chain.subCa.der), serial);
  const tsaQuery = () => buildTimeStampRequest({ hashAlgorithm: 'sha256', hashedMessage: createHash('sha256').update('metrics').digest(), certReq: true });

  it('before any CA exists: the role\'s own unauthorized answer and the TSA\'s systemFailure rejection count; no CRL age', async function () {
    const stranger = encodeCertId({ hashAlgorithm: 'sha1', issuerNameHash: new Uint8Array(20).fill(1), issuerKeyHash: new Uint8Array(20).fill(2), serialHex: '01' });
    const grew = await growth([ocsp('unauthorized', 'miss'), [TSA, { outcome: 'rejected', fail_info: 'systemFailure' }]], async () => {
      expect(await postOcsp(encodeOcspRequest([stranger]))).to.equal(200);
      expect(await postTsa(tsaQuery())).to.equal(200);
    });
    expect(grew).to.deep.equal([1, 1]);
    const s = await scrape();
    expect(s.has(CRL_AGE, { crl: 'leaf.crl' })).to.equal(false);
    expect(s.has(CRL_AGE, { crl: 'sub-ca.crl' })).to.equal(false);
  });

  it('after `pki init`: good (miss, one vault signature) then good (hit, none); a granted timestamp; CRL ages', async function () {
    chain = await initPki({ ...t.deps, events });
    await role.reloads();
    const request = encodeOcspRequest([subCaId(chain.leaf.serial)]);

    expect(await growth([ocsp('good', 'miss'), ocsp('good', 'hit'), SIGN_OK], () => postOcsp(request))).to.deep.equal([1, 0, 1]);
    expect(await growth([ocsp('good', 'miss'), ocsp('good', 'hit'), SIGN_OK], () => postOcsp(request))).to.deep.equal([0, 1, 0]);

    const granted = [TSA, { outcome: 'granted', fail_info: '' }] as const;
    expect(await growth([granted, SIGN_OK], () => requestTimestamp(new TextEncoder().encode('stamp me'), { url: `http://127.0.0.1:${role.tsaPort}/` }))).to.deep.equal([1, 1]);

    const s = await scrape();
    expect(s.body).to.match(/^mss_ocsp_responses_total\{status="good",cache="hit"\} \d+$/m);
    expect(s.body).to.match(/^mss_tsa_responses_total\{outcome="granted",fail_info=""\} \d+$/m);
    for (const crl of ['leaf.crl', 'sub-ca.crl']) {
      expect(s.has(CRL_AGE, { crl }), crl).to.equal(true);
      expect(s.value(CRL_AGE, { crl })).to.be.within(0, 300);
    }
  });

  it('TSA rejections made by the HTTP front count too (413: badDataFormat)', async function () {
    const grew = await growth([[TSA, { outcome: 'rejected', fail_info: 'badDataFormat' }]], async () => {
      expect(await postTsa(new Uint8Array(5000))).to.equal(413);
      expect(await postTsa(new Uint8Array([1, 2, 3]))).to.equal(200);
    });
    expect(grew).to.deep.equal([2]);
  });

  it('revoked, several CertIDs (one status or "multiple"), malformed requests and nonce responses', async function () {
    await revokeCertificate({ ...t.deps, events }, chain.leaf.serial, 'keyCompromise');
    const leaf = subCaId(chain.leaf.serial);
    const tsa = subCaId(chain.tsa.serial);
    const grew = await growth(
      [ocsp('revoked', 'miss'), ocsp('multiple', 'miss'), ocsp('good', 'miss'), ocsp('malformedRequest', 'miss')],
      async () => {
        await postOcsp(encodeOcspRequest([leaf])); // revoked
        await postOcsp(encodeOcspRequest([leaf, tsa])); // revoked + good: multiple
        await postOcsp(encodeOcspRequest([tsa, subCaId('1234abcd')])); // good + good (never issued: good): good
        await postOcsp(encodeOcspRequest([tsa], { nonce: new Uint8Array(16).fill(7) })); // a fresh signed nonce response: good, miss
        await postOcsp(new Uint8Array([0x30, 0x03, 0x02, 0x01, 0x01])); // malformed
      },
    );
    expect(grew).to.deep.equal([1, 1, 2, 1]);
  });

  it('another responder copy reading the shared store: a miss without a signature, its status read from the stored DER', async function () {
    const tsaRequest = encodeOcspRequest([subCaId(chain.tsa.serial)]);
    await postOcsp(tsaRequest); // the role signs the TSA certificate's "good" and stores it (the leaf's "revoked" is stored already)
    const copy = new OcspResponder({
      issuers: await loadOcspIssuers(t.db.knex, t.vault),
      lookupStatus: databaseStatusLookup(t.db.knex, 'good'),
      store: databaseResponseStore(t.db.knex),
    });
    // Answers are counted where they are sent: the copy behind its own HTTP edge.
    const server = createOcspServer(copy);
    const { port } = await listenServer(server, 0, '127.0.0.1');
    const ask = async (der: Uint8Array) => {
      const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: new Uint8Array(der), headers: { 'Content-Type': 'application/ocsp-request' } });
      return responseStatusOf(new Uint8Array(await res.arrayBuffer()));
    };
    try {
      const grew = await growth([ocsp('revoked', 'miss'), ocsp('good', 'miss'), ocsp('revoked', 'hit'), SIGN_OK], async () => {
        expect(await ask(encodeOcspRequest([subCaId(chain.leaf.serial)]))).to.equal(OCSPResponseStatus.successful);
        expect(await ask(tsaRequest)).to.equal(OCSPResponseStatus.successful);
        await ask(encodeOcspRequest([subCaId(chain.leaf.serial)])); // now from its own cache
      });
      expect(grew).to.deep.equal([1, 1, 1, 0]);
      expect(copy.stats().storeHits).to.equal(2);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('CRL age: a database that is down, or hangs, leaves the last values and the scrape still works', async function () {
    const before = (await scrape()).value(CRL_AGE, { crl: 'leaf.crl' });
    expect(before).to.be.above(0);

    const down = knexFactory({ client: 'pg', connection: 'postgres://postgres@127.0.0.1:1/none', pool: { min: 0, max: 1 }, acquireConnectionTimeout: 1000, log: quiet });
    const unregisterDown = registerCrlAgeCollector(down);
    try {
      expect((await scrape()).value(CRL_AGE, { crl: 'leaf.crl' })).to.equal(before);
    } finally {
      unregisterDown();
      await down.destroy();
    }

    // Accepts connections and never answers: the scrape gives up on the database after 2 s.
    const sockets: Socket[] = [];
    const silent: Server = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    const hung = knexFactory({ client: 'pg', connection: `postgres://postgres@127.0.0.1:${port}/none`, pool: { min: 0, max: 1 }, acquireConnectionTimeout: 10_000, log: quiet });
    const unregisterHung = registerCrlAgeCollector(hung);
    try {
      const started = Date.now();
      expect((await scrape()).value(CRL_AGE, { crl: 'leaf.crl' })).to.equal(before);
      expect(Date.now() - started).to.be.below(5000);
    } finally {
      unregisterHung();
      for (const s of sockets) s.destroy();
      silent.close();
      await hung.destroy().catch(() => undefined);
    }

    // The role's database again: fresh values.
    await new Promise((r) => setTimeout(r, 20));
    expect((await scrape()).value(CRL_AGE, { crl: 'leaf.crl' })).to.be.above(before);
  });
});
