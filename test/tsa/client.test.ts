/**
 * The workers' RFC 3161 HTTP client: a good reply is checked (imprint, nonce) and returned; everything else
 * (nothing listening, a rejection, a replayed or foreign token, garbage, a hung TSA) is a
 * TimestampUnavailableError, which fails the sign attempt so the queue retries it.
 */
import { createHash } from 'node:crypto';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { checkTimeStampToken } from '../../shared/tsa/token-check.js';
import { NoTsaCertificateError } from '../../shared/tsa/authority.js';
import { httpTimestamper, requestTimestamp, TimestampUnavailableError } from '../../shared/tsa/client.js';
import { buildTimeStampRequest } from '../../shared/tsa/protocol.js';
import { issueTestChain, tempDir, type TestChain } from '../pki/helpers.js';
import { startTestTsa, TEST_POLICY, tsaIdentityOf, type RunningTsa } from './support.js';

/** A stand-in server whose handler decides everything. */
async function fakeServer(handler: http.RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function expectUnavailable(p: Promise<unknown>, message: RegExp): Promise<TimestampUnavailableError> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(TimestampUnavailableError);
    expect((err as Error).message).to.match(message);
    return err as TimestampUnavailableError;
  }
  return expect.fail('expected TimestampUnavailableError');
}

describe('tsa: the workers’ HTTP client', function () {
  const tmp = tempDir('tsa-client-');
  let chain: TestChain;
  let tsa: RunningTsa;
  const data = new TextEncoder().encode('the COSE CounterSignature structure');

  before(async function () {
    chain = await issueTestChain(tmp.dir);
    tsa = await startTestTsa(tsaIdentityOf(chain));
  });
  after(async function () {
    await tsa?.close();
    tmp.cleanup();
  });

  it('returns a checked token stamping the bytes, with the TSA certificate inside', async function () {
    const before = Date.now();
    const result = await requestTimestamp(data, { url: tsa.url, policy: TEST_POLICY });
    const info = checkTimeStampToken(result.token, data);
    expect(info.policy).to.equal(TEST_POLICY);
    expect(info.nonce).to.match(/^[0-9a-f]{16}$/);
    expect(result.serial).to.equal(info.serial);
    expect(result.genTime.getTime()).to.be.within(Math.floor(before / 1000) * 1000, Date.now());
    expect(Buffer.from(result.token).includes(Buffer.from(chain.tsa.der))).to.equal(true);
    const token = await httpTimestamper({ url: tsa.url, hashAlgorithm: 'sha512' })(data);
    expect(checkTimeStampToken(token, data).hashAlgorithm).to.equal('sha512');
  });

  it('nothing listening: could not be reached', async function () {
    const gone = await fakeServer(() => undefined);
    await gone.close();
    const err = await expectUnavailable(httpTimestamper({ url: gone.url })(data), /could not be reached \(ECONNREFUSED\)/);
    expect(err.detail.url).to.equal(gone.url);
  });

  it('a connection closed before the reply (a stale kept-alive socket) is asked once more; twice fails', async function () {
    let requests = 0;
    const flaky = await fakeServer((req, res) => {
      requests += 1;
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (requests === 1) return req.socket.destroy(); // closed with no reply
        fetch(tsa.url, { method: 'POST', body: Buffer.concat(chunks) }).then(
          async (r) => res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? '' }).end(Buffer.from(await r.arrayBuffer())),
          () => res.destroy(),
        );
      });
    });
    const dropAll = await fakeServer((req) => {
      req.resume();
      req.on('end', () => req.socket.destroy());
    });
    try {
      const token = await httpTimestamper({ url: flaky.url })(data);
      expect(checkTimeStampToken(token, data).hashAlgorithm).to.equal('sha256');
      expect(requests).to.equal(2);
      await expectUnavailable(httpTimestamper({ url: dropAll.url })(data), /could not be reached \((UND_ERR_SOCKET|ECONNRESET)\)/);
    } finally {
      await flaky.close();
      await dropAll.close();
    }
  });

  it('a rejection names the status and failure info', async function () {
    const none = await startTestTsa(async () => Promise.reject(new NoTsaCertificateError()));
    try {
      const err = await expectUnavailable(httpTimestamper({ url: none.url })(data), /refused \(rejection: systemFailure; the TSA has no valid certificate\)/);
      expect(err.detail).to.include({ pkiStatus: 'rejection' });
      expect(err.detail.failInfo).to.deep.equal(['systemFailure']);
      await expectUnavailable(requestTimestamp(data, { url: tsa.url, policy: '1.2.3.4' }), /unacceptedPolicy/);
    } finally {
      await none.close();
    }
  });

  it('a replayed reply (another nonce) and a token for other bytes are refused', async function () {
    // Record one genuine reply, then serve it to every request.
    const recorded = await (await fetch(tsa.url, { method: 'POST', body: new Uint8Array(await queryFor(data)) })).arrayBuffer();
    const replay = await fakeServer((_req, res) => {
      _req.resume();
      res.writeHead(200, { 'Content-Type': 'application/timestamp-reply' }).end(Buffer.from(recorded));
    });
    try {
      await expectUnavailable(httpTimestamper({ url: replay.url })(data), /nonce/);
      await expectUnavailable(httpTimestamper({ url: replay.url })(new TextEncoder().encode('other')), /imprint does not match/);
    } finally {
      await replay.close();
    }
  });

  it('garbage, an HTTP error page and a hung TSA are refused too', async function () {
    const garbage = await fakeServer((req, res) => {
      req.resume();
      if (req.url === '/error') res.writeHead(502, { 'Content-Type': 'text/html' }).end('<h1>Bad Gateway</h1>');
      else if (req.url === '/hang') return; // never answers
      else res.writeHead(200).end('not DER');
    });
    try {
      await expectUnavailable(httpTimestamper({ url: garbage.url })(data), /HTTP 200, not an RFC 3161 TimeStampResp/);
      await expectUnavailable(httpTimestamper({ url: `${garbage.url}error` })(data), /HTTP 502, not an RFC 3161 TimeStampResp/);
      await expectUnavailable(httpTimestamper({ url: `${garbage.url}hang`, timeoutMs: 300 })(data), /no reply within 300 ms/);
    } finally {
      await garbage.close();
    }
  });
});

/** A DER query like the client's, for recording a reply. */
async function queryFor(bytes: Uint8Array): Promise<Uint8Array> {
  return buildTimeStampRequest({ hashAlgorithm: 'sha256', hashedMessage: createHash('sha256').update(bytes).digest(), nonce: Uint8Array.of(0x42), certReq: true });
}
