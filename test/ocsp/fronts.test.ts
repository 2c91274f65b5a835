/**
 * The ocsp role with front processes (OCSP_PROCESSES=2) on Postgres: the fronts answer POST and GET for SHA-1 and
 * SHA-256 CertIDs from their copies, ask the role for nonces (echoed, freshly signed), drop their copies on a
 * revocation, send their counts to the role's metrics, are replaced when one dies, and are gone when the role stops.
 */
import cluster from 'node:cluster';
import http from 'node:http';
import { expect } from 'chai';
import { startOcspRole, type OcspRole } from '../../ocsp/role.js';
import { createLogger } from '../../shared/logger.js';
import { certIdFor, encodeOcspGetPath, encodeOcspRequest } from '../../shared/pki/ocsp-request.js';
import { initPki, type InitPkiResult } from '../../shared/pki/init.js';
import { InProcessPkiEvents } from '../../shared/pki/pki-events.js';
import { revokeCertificate } from '../../shared/pki/revocation.js';
import { scrape } from '../metrics/support.js';
import { isRunning } from '../support/processes.js';
import { until } from '../support/until.js';
import { startTrust, type TrustFixture } from '../trust/support.js';
import { OCSPResponseStatus, parseOcspResponse } from './support.js';

const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent', 'test-ocsp-fronts');
const OCSP = 'mss_ocsp_responses_total';

function frontPids(): number[] {
  return Object.values(cluster.workers ?? {}).flatMap((w) => (w && !w.isDead() ? [w.process.pid!] : []));
}

describe('OCSP front processes (OCSP_PROCESSES=2) in the ocsp role', function () {
  this.timeout(120_000);
  let t: TrustFixture;
  let chain: InitPkiResult;
  let events: InProcessPkiEvents;
  let role: OcspRole;
  let url: string;

  before(async function () {
    t = await startTrust({ OCSP_PROCESSES: '2' });
    events = new InProcessPkiEvents();
    chain = await initPki({ ...t.deps, events });
    role = await startOcspRole(t.config, t.db.knex, t.vault, logger, { events, host: '127.0.0.1' });
    url = `http://127.0.0.1:${role.ocspPort}`;
  });

  after(async function () {
    const pids = frontPids();
    await role?.();
    await t?.close();
    for (const pid of pids) expect(isRunning(pid), `front ${pid} outlived the role`).to.equal(false);
  });

  const leafRequest = (hash: 'sha1' | 'sha256' = 'sha1', nonce?: Uint8Array) => encodeOcspRequest([certIdFor(chain.subCa.der, chain.leaf.serial, hash)], { nonce });
  /** A request on a new connection each time, as most OCSP clients send them (so the fronts share them out). */
  const exchange = (method: 'GET' | 'POST', path: string, body?: Uint8Array) =>
    new Promise<{ headers: http.IncomingHttpHeaders; der: Uint8Array }>((resolve, reject) => {
      const req = http.request(`${url}${path}`, { method, agent: false, headers: body ? { 'Content-Type': 'application/ocsp-request', 'Content-Length': body.length } : {} }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ headers: res.headers, der: new Uint8Array(Buffer.concat(chunks)) }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  const post = (der: Uint8Array) => exchange('POST', '/', der);
  const get = (der: Uint8Array) => exchange('GET', encodeOcspGetPath(der));
  const statusOf = (der: Uint8Array) => {
    const { status, basic } = parseOcspResponse(der);
    expect(status).to.equal(OCSPResponseStatus.successful);
    const cert = basic!.tbsResponseData.responses[0]!.certStatus;
    return cert.good !== undefined ? 'good' : cert.revoked ? 'revoked' : 'unknown';
  };
  const nonceOf = (der: Uint8Array) => {
    const ext = parseOcspResponse(der).basic!.tbsResponseData.responseExtensions?.find((e) => e.extnID === '1.3.6.1.5.5.7.48.1.2');
    return ext ? Buffer.from(ext.extnValue.buffer).toString('hex') : undefined;
  };

  it('runs two front processes on the OCSP port, none of them this process', function () {
    const pids = frontPids();
    expect(pids).to.have.length(2);
    expect(pids).to.not.include(process.pid);
  });

  it('answers POST and the RFC 5019 GET, SHA-1 and SHA-256 CertIDs; copies are hits, counted in the role\'s metrics', async function () {
    const before = await scrape();
    const first = await post(leafRequest('sha1'));
    expect(first.headers['cache-control']).to.equal('no-store');
    expect(statusOf(first.der)).to.equal('good');
    for (let i = 0; i < 20; i++) expect(statusOf((await post(leafRequest('sha1'))).der)).to.equal('good');
    const sha256 = await post(leafRequest('sha256'));
    expect(statusOf(sha256.der)).to.equal('good');
    const viaGet = await get(leafRequest('sha256'));
    expect(viaGet.headers['cache-control']).to.match(/^max-age=\d+, public, no-transform, must-revalidate$/);
    expect(statusOf(viaGet.der)).to.equal('good');
    // Each front sends its counts every second: 23 good answers, most of them from a front's copies.
    const grown = await until('the fronts\' counts', async () => {
      const now = await scrape();
      const hit = now.value(OCSP, { status: 'good', cache: 'hit' }) - before.value(OCSP, { status: 'good', cache: 'hit' });
      const miss = now.value(OCSP, { status: 'good', cache: 'miss' }) - before.value(OCSP, { status: 'good', cache: 'miss' });
      return hit + miss >= 23 && { hit, miss };
    }, 20_000, 50);
    expect(grown.hit + grown.miss).to.equal(23);
    expect(grown.hit).to.be.at.least(23 - 2 * 3); // at most one ask per front and CertID set (and the role may have had it)
  });

  it('answers a request with a nonce with a fresh signature echoing it, every time', async function () {
    const nonces = [new Uint8Array(16).fill(1), new Uint8Array(16).fill(2), new Uint8Array(16).fill(1)];
    const answers = [];
    for (const nonce of nonces) answers.push((await post(leafRequest('sha1', nonce))).der);
    expect(answers.map(nonceOf)).to.deep.equal(nonces.map((n) => Buffer.from(encodeOctets(n)).toString('hex')));
    // The same nonce twice: two signatures, not a copy.
    expect(Buffer.from(answers[0]!).equals(Buffer.from(answers[2]!))).to.equal(false);
    expect(answers.map(statusOf)).to.deep.equal(['good', 'good', 'good']);
  });

  it('answers garbage malformedRequest, in the front', async function () {
    const { der } = await post(new Uint8Array([0x30, 0x03, 0x02, 0x01]));
    expect(parseOcspResponse(der).status).to.equal(OCSPResponseStatus.malformedRequest);
  });

  it('drops the fronts\' copies on a revocation: the next answer is revoked', async function () {
    for (let i = 0; i < 6; i++) expect(statusOf((await post(leafRequest('sha1'))).der)).to.equal('good');
    await revokeCertificate({ knex: t.db.knex, vault: t.vault, config: t.config, events }, chain.leaf.serial, 'keyCompromise');
    // The notice is passed on to the fronts as the revocation commits; a front may see it a moment later.
    await until('revoked from every front', async () => {
      const got = await Promise.all(Array.from({ length: 6 }, async () => statusOf((await post(leafRequest('sha1'))).der)));
      return got.every((s) => s === 'revoked');
    }, 5000, 50);
    expect(statusOf((await get(leafRequest('sha256'))).der)).to.equal('revoked');
  });

  it('replaces a front that dies, and answers meanwhile', async function () {
    const [victim] = frontPids();
    process.kill(victim!, 'SIGKILL');
    expect(statusOf((await post(leafRequest('sha1'))).der)).to.equal('revoked');
    const pids = await until('a replacement front', () => {
      const now = frontPids();
      return now.length === 2 && !now.includes(victim!) && now;
    }, 20_000, 50);
    expect(pids).to.have.length(2);
    expect(statusOf((await post(leafRequest('sha256'))).der)).to.equal('revoked');
  });
});

/** The nonce extension's value as RFC 8954 wants it (and encodeOcspRequest sends it): an OCTET STRING holding the nonce. */
function encodeOctets(bytes: Uint8Array): Uint8Array {
  return new Uint8Array([0x04, bytes.length, ...bytes]);
}
