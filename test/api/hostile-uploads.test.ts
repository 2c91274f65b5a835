import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { expect } from 'chai';
import { createLogger } from '../../shared/logger.js';
import { answerProtocolErrors } from '../../api/protocol-errors.js';
import { bearer, registerAccount, startTestApi, type Account, type TestApi } from '../support/api.js';

const JPEG = readFileSync(new URL('../fixtures/photo.jpg', import.meta.url));

/** Sends `head` and `body` over a raw socket; `end`: close after sending (else stay open). Resolves with what came back. */
function rawRequest(port: number, data: Buffer, options: { destroyAfterMs?: number } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', (err) => ((err as NodeJS.ErrnoException).code === 'ECONNRESET' ? resolve(Buffer.concat(chunks).toString()) : reject(err)));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString()));
    socket.write(data);
    if (options.destroyAfterMs !== undefined) setTimeout(() => socket.destroy(), options.destroyAfterMs);
  });
}

function statusOf(raw: string): { status: number; body: unknown } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1]);
  const text = raw.slice(raw.indexOf('\r\n\r\n') + 4);
  return { status, body: text ? JSON.parse(text) : undefined };
}

const BOUNDARY = 'XX';
/** A multipart body whose `file` part starts and never reaches its closing boundary. */
const TRUNCATED_PART = Buffer.concat([
  Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`),
  Buffer.from([0xff, 0xd8, 0xff]),
]);

function post(pathname: string, headers: Record<string, string>, body: Buffer, contentLength = body.length): Buffer {
  const lines = [`POST ${pathname} HTTP/1.1`, 'Host: 127.0.0.1', `Content-Length: ${contentLength}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  return Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n'), body]);
}

describe('hostile uploads: a request can fail, the process cannot', () => {
  let api: TestApi;
  let server: Server;
  let port: number;
  let account: Account;
  let staging: string;

  /** Descriptors of this process open on a file in the staging directory. */
  const openStagedFiles = () =>
    readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`).startsWith(staging);
      } catch {
        return false;
      }
    });
  const staged = () => readdirSync(staging, { withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name);
  async function settled() {
    for (let i = 0; i < 50 && (staged().length > 0 || openStagedFiles().length > 0); i += 1) await new Promise((r) => setTimeout(r, 20));
    expect(staged(), 'files left in DATA_DIR/tmp').to.deep.equal([]);
    expect(openStagedFiles(), 'descriptors left open on staged files').to.deep.equal([]);
  }

  before(async () => {
    api = await startTestApi({ MAX_UPLOAD_BYTES: String(JPEG.length * 2) });
    server = createServer(api.app);
    answerProtocolErrors(server, createLogger('silent', 'test'));
    server.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    port = (server.address() as AddressInfo).port;
    account = await registerAccount(api.app, 'Hostile');
    staging = path.join(api.config.dataDir, 'tmp');
  });
  after(async () => {
    server.close();
    await api.close();
  });

  for (const route of ['/v1/verify', '/v1/media/upload', '/v1/media/verify', '/v1/matches/byContent']) {
    it(`a file part cut before its closing boundary is 400 malformed_multipart on ${route}, and leaves nothing`, async () => {
      const headers = { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, Authorization: bearer(account.access).Authorization, Connection: 'close' };
      const answer = statusOf(await rawRequest(port, post(route, headers, TRUNCATED_PART)));
      expect(answer.status).to.equal(400);
      expect(answer.body).to.deep.equal({ error: { code: 'malformed_multipart', message: 'malformed multipart body' } });
      await settled();
      // Still serving.
      const health = await fetch(`http://127.0.0.1:${port}/health`);
      expect(health.status).to.equal(200);
    });
  }

  it('several parts named "file" (the first empty, as the fuzzer found) are a 400 on every multipart route, and leave nothing', async () => {
    const part = (filename: string, content: Buffer, type = 'image/jpeg') =>
      Buffer.concat([Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`, 'latin1'), content, Buffer.from('\r\n')]);
    for (const body of [
      // As the fuzzer found it (seed 2143436417): control characters and Latin-1 bytes in the name, an SVG type.
      Buffer.concat([part('\u0014\u0002\u0005\xf3\xad\x87\x99', Buffer.alloc(0), 'image/svg+xml'), part('a.jpg', JPEG), part('b.jpg', JPEG), Buffer.from(`--${BOUNDARY}--\r\n`)]),
      Buffer.concat([part('a.jpg', JPEG), part('b.jpg', JPEG), Buffer.from(`--${BOUNDARY}--\r\n`)]),
    ]) {
      for (const route of ['/v1/verify', '/v1/media/upload', '/v1/media/verify']) {
        const headers = { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, Authorization: bearer(account.access).Authorization, Connection: 'close' };
        const answer = statusOf(await rawRequest(port, post(route, headers, body)));
        expect(answer.status, route).to.equal(400);
        // busboy refuses the first body's part header (control characters in its name) before the second part.
        expect((answer.body as { error: { code: string } }).error.code, route).to.be.oneOf(['too_many_files', 'malformed_multipart']);
        await settled();
      }
    }
  });

  for (const [route, contentType] of [
    ['/v1/verify', `multipart/form-data; boundary=${BOUNDARY}`],
    ['/v1/media/upload', `multipart/form-data; boundary=${BOUNDARY}`],
    ['/v1/matches/byContent', 'image/jpeg'],
  ] as const) {
    it(`a client that disconnects mid-body on ${route} (${contentType.split(';')[0]}) leaves no file and no descriptor`, async () => {
      const head = contentType.startsWith('multipart')
        ? Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`)
        : Buffer.alloc(0);
      const sent = Buffer.concat([head, JPEG.subarray(0, JPEG.length / 2)]);
      const headers = { 'Content-Type': contentType, Authorization: bearer(account.access).Authorization };
      // Declares the whole file, sends half of it, waits until the server is writing it to disk, then goes away.
      await rawRequest(port, post(route, headers, sent, head.length + JPEG.length + 100), { destroyAfterMs: 300 });
      await settled();
    });
  }

  it('a raw body past the limit, without a declared length, is answered 413 (the rest drained)', async () => {
    const big = Buffer.alloc(JPEG.length * 3, 0xab);
    const res = await fetch(`http://127.0.0.1:${port}/v1/matches/byContent`, {
      method: 'POST',
      headers: { 'content-type': 'image/jpeg' },
      body: new ReadableStream({ start(c) { c.enqueue(big); c.close(); } }),
      duplex: 'half',
    } as RequestInit);
    expect(res.status).to.equal(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).to.equal('payload_too_large');
    await settled();
  });

  it('a 100 KB URL and a 20 KB header are 431 with the JSON error shape', async () => {
    for (const req of [
      `GET /health?${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`,
    ]) {
      const raw = await rawRequest(port, Buffer.from(req));
      expect(raw).to.match(/^HTTP\/1\.1 431 /);
      expect(raw).to.match(/content-type: application\/json/i);
      expect(statusOf(raw).body).to.have.nested.property('error.code', 'headers_too_large');
    }
  });

  it('garbage instead of HTTP is a 400 with the JSON error shape', async () => {
    const raw = await rawRequest(port, Buffer.from('\x16\x03\x01 not http at all\r\n\r\n'));
    expect(statusOf(raw).status).to.equal(400);
    expect(statusOf(raw).body).to.have.nested.property('error.code', 'bad_request');
  });
});
