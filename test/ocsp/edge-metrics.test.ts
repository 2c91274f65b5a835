/**
 * mss_ocsp_responses_total is counted at the HTTP edge: every answer written, the refusals made by the HTTP layer
 * included (413, an undecodable GET path, an answer past its deadline, another method, HTTP the parser refuses).
 */
import { rmSync } from 'node:fs';
import net from 'node:net';
import { expect } from 'chai';
import { certIdFor, encodeOcspGetPath, encodeOcspRequest } from '../../shared/pki/ocsp-request.js';
import { growth } from '../metrics/support.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';
import { StatusTable, countingKey, issuersOf, serialOf, startResponder, type RunningResponder } from './support.js';

const OCSP = 'mss_ocsp_responses_total';
const ocsp = (status: string, cache: 'hit' | 'miss' = 'miss') => [OCSP, { status, cache }] as const;

/** Sends raw bytes and resolves with the status line the server answers, once it closes the connection. */
function rawStatusLine(port: number, data: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => resolve(text.split('\r\n')[0]!));
    socket.write(data);
  });
}

describe('OCSP metrics at the HTTP edge', function () {
  let chain: OpensslChain;
  const others: OpensslChain[] = [];
  let running: RunningResponder;
  let good: Uint8Array;

  before(async function () {
    chain = await makeOpensslChain();
    const { subCa, root } = issuersOf(chain);
    running = await startResponder({ issuers: [subCa, root], lookupStatus: new StatusTable().lookup }, { requestTimeoutMs: 1000, headersTimeoutMs: 1000 });
    good = encodeOcspRequest([certIdFor(chain.der.subCa, serialOf(chain.pem.leaf))]);
  });

  after(async function () {
    await running?.close();
    for (const c of [chain, ...others]) if (c) rmSync(c.dir, { recursive: true, force: true });
  });

  const post = async (body: Uint8Array) => {
    const res = await fetch(`${running.url}/`, { method: 'POST', body: new Uint8Array(body), headers: { 'Content-Type': 'application/ocsp-request' } });
    await res.arrayBuffer();
    return res.status;
  };
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${running.url}${path}`, { headers });
    await res.arrayBuffer();
    return res;
  };

  it('counts signed answers by certificate status and cache, a 304 too, and not /health', async function () {
    const getPath = encodeOcspGetPath(good);
    const grew = await growth([ocsp('good', 'miss'), ocsp('good', 'hit')], async () => {
      expect(await post(good)).to.equal(200); // signed: miss
      expect(await post(good)).to.equal(200); // cached: hit
      const first = await get(getPath);
      expect((await get(getPath, { 'If-None-Match': first.headers.get('etag')! })).status).to.equal(304);
      expect((await get('/health')).status).to.equal(200);
    });
    expect(grew).to.deep.equal([1, 3]);
  });

  it('counts the refusals: 413, undecodable GET paths and garbage as malformedRequest, unknown CAs as unauthorized', async function () {
    const other = await makeOpensslChain({ cn: 'Other' });
    others.push(other);
    const grew = await growth([ocsp('malformedRequest'), ocsp('unauthorized')], async () => {
      expect(await post(new Uint8Array(10 * 1024 + 1))).to.equal(413);
      expect((await get('/not*base64')).status).to.equal(200);
      expect((await get('/%E0%A4%A')).status).to.equal(200);
      expect(await post(new TextEncoder().encode('garbage'))).to.equal(200);
      expect(await post(encodeOcspRequest([certIdFor(other.der.subCa, serialOf(other.pem.leaf))]))).to.equal(200);
    });
    expect(grew).to.deep.equal([4, 1]);
  });

  it('counts refusals without an OCSP body: another method (http_405), HTTP garbage (http_400), a stalled request (http_408)', async function () {
    const grew = await growth([ocsp('http_405'), ocsp('http_400'), ocsp('http_408')], async () => {
      const put = await fetch(`${running.url}/`, { method: 'PUT', body: 'x' });
      await put.arrayBuffer();
      expect(put.status).to.equal(405);
      expect(await rawStatusLine(running.port, 'BLAH\x00\x01 nonsense\r\n\r\n')).to.match(/^HTTP\/1\.1 400 /);
      expect(await rawStatusLine(running.port, 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 80\r\n\r\n0123')).to.match(/^HTTP\/1\.1 408 /);
    });
    expect(grew).to.deep.equal([1, 1, 1]);
  });

  it('counts an answer past its deadline as tryLater, and not the late signature', async function () {
    const { subCa } = issuersOf(chain);
    subCa.key = countingKey(chain.keys.subCa, { delayMs: 400 });
    const slow = await startResponder({ issuers: [subCa], lookupStatus: async () => ({ status: 'good' }) }, { answerTimeoutMs: 50 });
    try {
      const grew = await growth([ocsp('tryLater'), ocsp('good', 'miss'), ocsp('good', 'hit')], async () => {
        const res = await fetch(`${slow.url}/`, { method: 'POST', body: new Uint8Array(good) });
        expect(Buffer.from(await res.arrayBuffer()).toString('hex')).to.equal('30030a0103');
        await new Promise((r) => setTimeout(r, 500)); // the signature lands in the cache, unsent
      });
      expect(grew).to.deep.equal([1, 0, 0]);
      expect(subCa.key.count()).to.equal(1);
    } finally {
      await slow.close();
    }
  });
});
