/** The HTTP front: routes, headers, limits, timeouts, and clients that misbehave. */
import { rmSync } from 'node:fs';
import { expect } from 'chai';
import net from 'node:net';
import { certIdFor, encodeOcspGetPath, encodeOcspRequest } from '../../shared/pki/ocsp-request.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';
import {
  OCSPResponseStatus,
  StatusTable,
  countingKey,
  issuersOf,
  parseOcspResponse,
  responseStatusOf,
  serialOf,
  startResponder,
  type RunningResponder,
} from './support.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** Writes `data` on a raw connection; resolves with everything the server sent once it closes (or after `waitMs`). */
function raw(port: number, data: Buffer | string, options: { closeAfterWrite?: boolean; waitMs?: number } = {}): Promise<{ text: string; closedByServer: boolean; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let closedByServer = false;
    const timer = setTimeout(() => socket.destroy(), options.waitMs ?? 3000);
    socket.on('data', (c) => chunks.push(c));
    socket.on('end', () => {
      closedByServer = true;
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'ECONNRESET' && err.code !== 'EPIPE') reject(err);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text: Buffer.concat(chunks).toString('latin1'), closedByServer, ms: Date.now() - started });
    });
    socket.write(data, () => {
      if (options.closeAfterWrite) socket.destroy();
    });
  });
}

describe('OCSP responder over HTTP', function () {
  let chain: OpensslChain;
  let running: RunningResponder;
  let good: Uint8Array;
  let withNonce: Uint8Array;

  after(() => {
    if (chain) rmSync(chain.dir, { recursive: true, force: true });
  });

  before(async function () {
    chain = await makeOpensslChain();
    const { subCa, root } = issuersOf(chain);
    running = await startResponder({ issuers: [subCa, root], lookupStatus: new StatusTable().lookup }, { requestTimeoutMs: 1000, headersTimeoutMs: 1000 });
    good = encodeOcspRequest([certIdFor(chain.der.subCa, serialOf(chain.pem.leaf))]);
    withNonce = encodeOcspRequest([certIdFor(chain.der.subCa, serialOf(chain.pem.leaf))], { nonce: new Uint8Array(16).fill(9) });
  });

  after(async function () {
    await running?.close();
  });

  function post(body: Uint8Array | string, headers: Record<string, string> = {}) {
    return fetch(`${running.url}/`, { method: 'POST', body: typeof body === 'string' ? body : new Uint8Array(body), headers: { 'Content-Type': 'application/ocsp-request', ...headers } });
  }

  async function ocspBody(res: Response): Promise<Uint8Array> {
    expect(res.headers.get('content-type')).to.equal('application/ocsp-response');
    return new Uint8Array(await res.arrayBuffer());
  }

  /** The service still answers a well-formed request correctly. */
  async function stillAnswers(): Promise<void> {
    const res = await post(good);
    expect(res.status).to.equal(200);
    const { status, basic } = parseOcspResponse(await ocspBody(res));
    expect(status).to.equal(OCSPResponseStatus.successful);
    expect(basic!.tbsResponseData.responses[0]!.certStatus.good).to.equal(null);
  }

  it('GET /health -> {"status":"ok"}', async function () {
    const res = await fetch(`${running.url}/health`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/json');
    expect(await res.json()).to.deep.equal({ status: 'ok' });
  });

  it('POST answers with application/ocsp-response and no HTTP caching', async function () {
    const res = await post(good);
    expect(res.status).to.equal(200);
    expect(responseStatusOf(await ocspBody(res))).to.equal(OCSPResponseStatus.successful);
    expect(res.headers.get('cache-control')).to.equal('no-store');
  });

  it('GET carries RFC 5019 caching headers within nextUpdate and honours If-None-Match; HEAD has no body', async function () {
    const url = `${running.url}${encodeOcspGetPath(good)}`;
    const res = await fetch(url);
    expect(res.status).to.equal(200);
    const body = await ocspBody(res);
    const { basic } = parseOcspResponse(body);
    const nextUpdate = basic!.tbsResponseData.responses[0]!.nextUpdate!.getTime();
    const cacheControl = res.headers.get('cache-control')!;
    expect(cacheControl).to.match(/^max-age=\d+, public, no-transform, must-revalidate$/);
    const maxAge = Number(/max-age=(\d+)/.exec(cacheControl)![1]);
    expect(maxAge).to.be.within(3590, 3600); // the 1 h cap; nextUpdate is a day away
    expect(Date.now() + maxAge * 1000).to.be.below(nextUpdate);
    const etag = res.headers.get('etag')!;
    expect(etag).to.match(/^"[0-9a-f]{40}"$/);
    expect(Date.parse(res.headers.get('last-modified')!)).to.equal(basic!.tbsResponseData.producedAt.getTime());
    expect(Date.parse(res.headers.get('expires')!)).to.be.at.most(nextUpdate);

    const again = await fetch(url, { headers: { 'If-None-Match': etag } });
    expect(again.status).to.equal(304);
    expect((await again.arrayBuffer()).byteLength).to.equal(0);
    expect(again.headers.get('etag')).to.equal(etag);

    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).to.equal(200);
    expect(head.headers.get('content-length')).to.equal(String(body.length));
    expect((await head.arrayBuffer()).byteLength).to.equal(0);

    const nonced = await fetch(`${running.url}${encodeOcspGetPath(withNonce)}`);
    expect(responseStatusOf(await ocspBody(nonced))).to.equal(OCSPResponseStatus.successful);
    expect(nonced.headers.get('cache-control')).to.equal('no-store');
    expect(nonced.headers.get('etag')).to.equal(null);
  });

  it('answers malformedRequest (HTTP 200) to garbage, an empty body, a truncated request and bad GET paths', async function () {
    const cases: Array<() => Promise<Response>> = [
      () => post('this is not an OCSP request'),
      () => post(new Uint8Array(0)),
      () => post(good.subarray(0, Math.floor(good.length / 2))),
      () => post(Uint8Array.from([...good, 0, 0])),
      () => fetch(`${running.url}/`),
      () => fetch(`${running.url}/not*base64`),
      () => fetch(`${running.url}/%E0%A4%A`),
      () => fetch(`${running.url}/aGVsbG8gd29ybGQ=`),
    ];
    for (const make of cases) {
      const res = await make();
      expect(res.status).to.equal(200);
      expect(hex(await ocspBody(res))).to.equal('30030a0101');
      expect(res.headers.get('cache-control')).to.equal('no-store');
      await stillAnswers();
    }
  });

  it('answers 413 with malformedRequest to bodies over 10 KiB, declared or chunked', async function () {
    const big = new Uint8Array(10 * 1024 + 1);
    big.set(good);
    const res = await post(big);
    expect(res.status).to.equal(413);
    expect(hex(await ocspBody(res))).to.equal('30030a0101');
    await stillAnswers();

    const chunk = Buffer.alloc(4096, 0x41);
    const chunked = Buffer.concat([
      Buffer.from('POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/ocsp-request\r\nTransfer-Encoding: chunked\r\n\r\n'),
      ...Array.from({ length: 4 }, () => Buffer.concat([Buffer.from('1000\r\n'), chunk, Buffer.from('\r\n')])),
      Buffer.from('0\r\n\r\n'),
    ]);
    const r = await raw(running.port, chunked);
    expect(r.text).to.match(/^HTTP\/1\.1 413 /);
    expect(r.text).to.include('Connection: close');
    expect(Buffer.from(r.text.slice(r.text.indexOf('\r\n\r\n') + 4), 'latin1').toString('hex')).to.equal('30030a0101');
    await stillAnswers();

    // Exactly at the limit is still read (and is garbage here).
    expect(responseStatusOf(await ocspBody(await post(new Uint8Array(10 * 1024))))).to.equal(OCSPResponseStatus.malformedRequest);
  });

  it('survives clients that send half a request and close', async function () {
    const head = `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/ocsp-request\r\nContent-Length: ${good.length}\r\n\r\n`;
    await raw(running.port, Buffer.concat([Buffer.from(head), Buffer.from(good.subarray(0, 20))]), { closeAfterWrite: true });
    await raw(running.port, 'POST / HTTP/1.1\r\nHost: x\r\nContent-Le', { closeAfterWrite: true });
    await raw(running.port, `GET ${encodeOcspGetPath(good)}`, { closeAfterWrite: true });
    await raw(running.port, '', { closeAfterWrite: true });
    await Promise.all(Array.from({ length: 20 }, () => raw(running.port, head, { closeAfterWrite: true })));
    await stillAnswers();
  });

  it('closes connections that stall mid-request (request timeout) and answers HTTP garbage with 400', async function () {
    const stalled = await raw(running.port, 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 80\r\n\r\n0123', { waitMs: 6000 });
    expect(stalled.closedByServer).to.equal(true);
    expect(stalled.ms).to.be.below(5000); // 1 s timeout here, checked every second; the proxy waits 10 s
    expect(stalled.text).to.match(/^HTTP\/1\.1 408 /);

    const headersOnly = await raw(running.port, 'GET /health HTTP/1.1\r\nHost: x\r\n', { waitMs: 6000 });
    expect(headersOnly.closedByServer).to.equal(true);
    expect(headersOnly.ms).to.be.below(5000);

    const junk = await raw(running.port, 'BLAH\x00\x01 nonsense\r\n\r\n');
    expect(junk.text).to.match(/^HTTP\/1\.1 400 /);
    await stillAnswers();
  });

  it('answers 405 to other methods', async function () {
    const res = await fetch(`${running.url}/`, { method: 'PUT', body: 'x' });
    expect(res.status).to.equal(405);
    expect(res.headers.get('allow')).to.equal('GET, HEAD, POST');
    expect(await res.json()).to.deep.equal({ error: { code: 'method_not_allowed', message: 'use POST with a DER OCSP request, or GET' } });
  });

  it('answers a mix of good and bad concurrent requests, each correctly', async function () {
    const kinds = Array.from({ length: 60 }, (_, i) => i % 3);
    const results = await Promise.all(
      kinds.map(async (k) => {
        const res = k === 0 ? await post(good) : k === 1 ? await post('garbage') : await fetch(`${running.url}${encodeOcspGetPath(good)}`);
        return responseStatusOf(await ocspBody(res));
      }),
    );
    results.forEach((status, i) => expect(status).to.equal(kinds[i] === 1 ? OCSPResponseStatus.malformedRequest : OCSPResponseStatus.successful));
  });

  it('answers tryLater when the vault is slower than the answer deadline, and caches the late signature', async function () {
    const { subCa } = issuersOf(chain);
    subCa.key = countingKey(chain.keys.subCa, { delayMs: 600 });
    const slow = await startResponder({ issuers: [subCa], lookupStatus: async () => ({ status: 'good' }) }, { answerTimeoutMs: 100 });
    try {
      const body = new Uint8Array(good); // ArrayBuffer-backed, as fetch's types want
      const first = await fetch(`${slow.url}/`, { method: 'POST', body });
      expect(hex(await ocspBody(first))).to.equal('30030a0103');
      await new Promise((r) => setTimeout(r, 700));
      const second = await fetch(`${slow.url}/`, { method: 'POST', body });
      expect(responseStatusOf(await ocspBody(second))).to.equal(OCSPResponseStatus.successful);
      expect(subCa.key.count()).to.equal(1);
    } finally {
      await slow.close();
    }
  });
});
