/**
 * The OCSP edge's fast lane: which requests it reads itself, and that what it answers and what it hands to node:http
 * reach the client as node:http would have answered (connection handling, keep-alive, pipelining, HEAD, 304, 408).
 */
import { rmSync } from 'node:fs';
import net from 'node:net';
import { expect } from 'chai';
import { parsePlainRequest } from '../../ocsp/fast-lane.js';
import { certIdFor, encodeOcspGetPath, encodeOcspRequest } from '../../shared/pki/ocsp-request.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';
import { OCSPResponseStatus, StatusTable, issuersOf, responseStatusOf, serialOf, startResponder, type RunningResponder } from './support.js';

const MAX = 10 * 1024;
const req = (head: string, body = '') => Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from(body, 'latin1')]);

describe('OCSP fast lane: the requests it reads itself', function () {
  it('reads what ab and OCSP clients send: HTTP/1.0 and 1.1 POST, GET, HEAD, with their connection wishes', function () {
    const ab = parsePlainRequest(req('POST / HTTP/1.0\r\nContent-length: 3\r\nContent-type: application/ocsp-request\r\nHost: 127.0.0.1:1\r\nUser-Agent: ApacheBench/2.3\r\nAccept: */*\r\n\r\n', 'abc'), MAX);
    expect(ab).to.deep.include({ method: 'POST', url: '/', keepAlive: false, ifNoneMatch: undefined });
    expect(ab!.body.toString()).to.equal('abc');
    expect(parsePlainRequest(req('POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n\r\n', 'z'), MAX)).to.deep.include({ keepAlive: true });
    expect(parsePlainRequest(req('POST / HTTP/1.1\r\nHost: h\r\nConnection: close\r\nContent-Length: 1\r\n\r\n', 'z'), MAX)).to.deep.include({ keepAlive: false });
    expect(parsePlainRequest(req('GET /MEkw HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n'), MAX)).to.deep.include({ method: 'GET', url: '/MEkw', keepAlive: true });
    expect(parsePlainRequest(req('HEAD /MEkw HTTP/1.1\r\nHost: h\r\nIf-None-Match: "ab"\r\n\r\n'), MAX)).to.deep.include({ method: 'HEAD', ifNoneMatch: '"ab"' });
    expect(parsePlainRequest(req('POST / HTTP/1.1\r\nHost: h\r\n\r\n'), MAX)!.body.length).to.equal(0);
  });

  it('leaves everything else to node:http', function () {
    const refused = [
      req('POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n', '1\r\na\r\n0\r\n\r\n'),
      req('POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\n'),
      req('GET / HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\n\r\n'),
      req('POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n', 'a'),
      req('POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\n', 'a'), // the rest is still on its way
      req('POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n\r\n', 'aGET / HTTP/1.1\r\n\r\n'), // pipelined
      req('POST / HTTP/1.1\r\nContent-Length: 1\r\n\r\n', 'a'), // 1.1 without Host
      req('POST / HTTP/1.1\r\nHost: h\r\nHost: i\r\nContent-Length: 1\r\n\r\n', 'a'),
      req('POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n'),
      req(`POST / HTTP/1.1\r\nHost: h\r\nContent-Length: ${MAX + 1}\r\n\r\n`, 'x'.repeat(MAX + 1)), // node:http answers 413
      req('GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n\r\n', 'a'),
      req('GET / HTTP/1.1\r\nHost: h\r\n folded: value\r\n\r\n'),
      req('GET / HTTP/1.1\r\nHost: h\r\nBad Name: v\r\n\r\n'),
      req('GET / HTTP/1.1\r\nHost: h\r\nX: a\x00b\r\n\r\n'),
      req('GET / HTTP/2.0\r\nHost: h\r\n\r\n'),
      req('PUT / HTTP/1.1\r\nHost: h\r\n\r\n'),
      req('GET http://h/ HTTP/1.1\r\nHost: h\r\n\r\n'),
      req(`GET / HTTP/1.1\r\nHost: h\r\nX: ${'a'.repeat(9000)}\r\n\r\n`),
      req('GET / HTTP/1.1\r\nHost: h\r\n'), // headers not finished
    ];
    for (const r of refused) expect(parsePlainRequest(r, MAX), JSON.stringify(r.toString('latin1').slice(0, 80))).to.equal(undefined);
  });
});

/** Writes `data` and collects what the server sends until it closes (or `waitMs`). */
function talk(port: number, data: Buffer | string, waitMs = 3000): Promise<{ text: string; closedByServer: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let closedByServer = false;
    const timer = setTimeout(() => socket.destroy(), waitMs);
    socket.on('data', (c) => chunks.push(c));
    socket.on('end', () => (closedByServer = true));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text: Buffer.concat(chunks).toString('latin1'), closedByServer });
    });
    socket.write(data);
  });
}

/** The HTTP responses in `text`, each with its headers (lower-case names) and body. */
function responses(text: string): { status: number; headers: Record<string, string>; body: Buffer }[] {
  const out = [];
  let rest = Buffer.from(text, 'latin1');
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    const lines = rest.toString('latin1', 0, end).split('\r\n');
    const headers = Object.fromEntries(lines.slice(1).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
    const status = Number(lines[0]!.split(' ')[1]);
    const length = status === 304 || headers['content-length'] === undefined ? 0 : Number(headers['content-length']);
    out.push({ status, headers, body: rest.subarray(end + 4, end + 4 + length) });
    rest = rest.subarray(end + 4 + length);
  }
  return out;
}

describe('OCSP fast lane: over a socket', function () {
  let chain: OpensslChain;
  let running: RunningResponder;
  let good: Uint8Array;

  before(async function () {
    chain = await makeOpensslChain();
    const { subCa } = issuersOf(chain);
    running = await startResponder({ issuers: [subCa], lookupStatus: new StatusTable().lookup }, { headersTimeoutMs: 1000, requestTimeoutMs: 1000 });
    good = encodeOcspRequest([certIdFor(chain.der.subCa, serialOf(chain.pem.leaf))]);
  });
  after(async function () {
    await running?.close();
    if (chain) rmSync(chain.dir, { recursive: true, force: true });
  });

  const post = (version: string, extra = '') => req(`POST / HTTP/${version}\r\nHost: x\r\nContent-Type: application/ocsp-request\r\n${extra}Content-Length: ${good.length}\r\n\r\n`, Buffer.from(good).toString('latin1'));

  it('answers an HTTP/1.0 POST (ab) and closes, with the headers node:http sends', async function () {
    const { text, closedByServer } = await talk(running.port, post('1.0'));
    expect(closedByServer).to.equal(true);
    const [r] = responses(text);
    expect(text).to.match(/^HTTP\/1\.1 200 OK\r\n/);
    expect(r!.headers).to.include({ 'content-type': 'application/ocsp-response', 'cache-control': 'no-store', connection: 'close' });
    expect(new Date(r!.headers.date!).getTime()).to.be.closeTo(Date.now(), 5000);
    expect(responseStatusOf(r!.body)).to.equal(OCSPResponseStatus.successful);
  });

  it('keeps an HTTP/1.1 connection: a second request on it is answered (by node:http), and so are pipelined ones', async function () {
    const socket = net.connect(running.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    const received = (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => (responses(Buffer.concat(chunks).toString('latin1')).filter((r) => r.body.length > 0).length >= n ? resolve() : setTimeout(check, 10));
        check();
      });
    socket.write(post('1.1'));
    await received(1);
    socket.write(post('1.1'));
    await received(2);
    socket.write(Buffer.concat([post('1.1'), post('1.1')]));
    await received(4);
    socket.destroy();
    const all = responses(Buffer.concat(chunks).toString('latin1'));
    expect(all.map((r) => r.status)).to.deep.equal([200, 200, 200, 200]);
    expect(all[0]!.headers).to.include({ connection: 'keep-alive', 'keep-alive': 'timeout=5' });
    for (const r of all) expect(responseStatusOf(r.body)).to.equal(OCSPResponseStatus.successful);

    // Pipelined from the first bytes: node:http answers both, in order.
    const piped = await talk(running.port, Buffer.concat([post('1.1'), post('1.1', 'Connection: close\r\n')]));
    expect(responses(piped.text).map((r) => r.status)).to.deep.equal([200, 200]);
  });

  it('answers HEAD without a body and If-None-Match with 304, as node:http does', async function () {
    const path = encodeOcspGetPath(good);
    const head = responses((await talk(running.port, `HEAD ${path} HTTP/1.0\r\n\r\n`)).text)[0]!;
    expect(head.status).to.equal(200);
    expect(Number(head.headers['content-length'])).to.be.greaterThan(0);
    expect(head.body.length).to.equal(0);
    const etag = head.headers.etag!;
    const again = await talk(running.port, `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nIf-None-Match: ${etag}\r\n\r\n`);
    const notModified = responses(again.text)[0]!;
    expect(notModified.status).to.equal(304);
    expect(notModified.headers).to.include({ etag });
    expect(notModified.headers).to.not.have.property('content-type');
  });

  it('refuses a connection that sends nothing with 408 once the headers timeout passes', async function () {
    const started = Date.now();
    const { text, closedByServer } = await talk(running.port, '', 4000);
    expect(closedByServer).to.equal(true);
    expect(text).to.match(/^HTTP\/1\.1 408 /);
    expect(Date.now() - started).to.be.within(900, 3000);
  });
});
