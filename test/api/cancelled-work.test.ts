/**
 * Work whose client went away stops, and no client holds more pool work than its allowance:
 * - the verification pool drops a cancelled task from its queue, or kills and replaces the process working on it, and
 *   answers only once that process is gone (api/media/verify-pool.ts, verify-members.ts);
 * - a route's signal aborts when its client hangs up (api/client-signal.ts), and the per-address limit counts a
 *   request until its work has ended, not until its response closed (api/rate-limit.ts);
 * - uploads' pixel checks have a pool of their own, so they never wait behind verifications;
 * - the refusals anyone can cause (503 verification_busy, 429) are logged at warn or info, never error.
 * Slow work, legitimately: an SVG of 170 bytes declaring 9990 x 9990 (99.8 MP, within MAX_IMAGE_PIXELS), which the
 * fingerprint renders at full size (seconds of librsvg).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import express from 'express';
import request from 'supertest';
import { clientSignal } from '../../api/client-signal.js';
import { errorHandler } from '../../api/errors.js';
import { VerifyPool } from '../../api/media/verify-pool.js';
import { createRateLimiters } from '../../api/rate-limit.js';
import { initPki } from '../../shared/pki/init.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { growth } from '../metrics/support.js';
import { bearer, registerAccount, startTestApi, type Account, type TestApi } from '../support/api.js';
import { largePhotoJpeg, pngBomb, svgDeclaring } from '../support/bomb-images.js';
import { alive } from '../support/descendants.js';
import { RecordingLogger } from '../support/recording-logger.js';

/** Waits (polling) until `holds`; fails, naming `what`, if that takes longer than a generous bound. */
async function until(holds: () => boolean, what: string, boundMs = 90_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!holds()) {
    if (Date.now() > deadline) throw new Error(`still waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const slowSvg = () => svgDeclaring(9990, 9990);

/** A POST of `file` (multipart part `file`) from client `address` (X-Forwarded-For), which `hangUp()` drops. */
function droppable(base: string, route: string, file: Buffer, name: string, type: string, address: string): { hangUp(): void; settled: Promise<unknown> } {
  const controller = new AbortController();
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(file)], { type }), name);
  const settled = fetch(`${base}${route}`, { method: 'POST', body: form, headers: { 'X-Forwarded-For': address }, signal: controller.signal }).then(
    (res) => res.arrayBuffer(),
    () => undefined,
  );
  return { hangUp: () => controller.abort(), settled };
}

describe('verification pool: a cancelled task is dropped, or its process killed and replaced', function () {
  this.timeout(180_000);
  let dir: string;
  let pool: VerifyPool;

  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'cancel-'));
    writeFileSync(path.join(dir, 'slow.svg'), slowSvg());
    writeFileSync(path.join(dir, 'small.png'), pngBomb(400, 300));
    pool = new VerifyPool({ name: 'verify', size: 1, queueLimit: 4, recycleBytes: 2 ** 30 });
  });
  after(async () => {
    await pool?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a waiting task leaves the queue; a running one ends once its process is gone; the next task gets a new process', async () => {
    const fingerprint = (signal: AbortSignal) =>
      pool.run('fingerprint', { filePath: path.join(dir, 'slow.svg'), mimeType: 'image/svg+xml', maxPixels: 200_000_000, fingerprintMode: 'fast' }, signal);
    const running = new AbortController();
    const waiting = new AbortController();
    const first = fingerprint(running.signal).then(() => 'finished', (err: { code?: string }) => err.code);
    const second = fingerprint(waiting.signal).then(() => 'finished', (err: { code?: string }) => err.code);
    await until(() => pool.state().busy === 1 && pool.state().queued === 1 && pool.pids().length === 1, 'one task at work, one waiting');
    const [worker] = pool.pids();
    const [cancelled, failed] = await growth(
      [
        ['mss_verify_pool_rejections_total', { reason: 'cancelled' }],
        ['mss_verify_pool_rejections_total', { reason: 'failed' }],
      ],
      async () => {
        waiting.abort();
        expect(await second).to.equal('verification_cancelled');
        expect(pool.state()).to.deep.include({ busy: 1, queued: 0 });
        running.abort();
        expect(await first).to.equal('verification_cancelled');
        // Settled only once its process had exited: nothing of the work is left running.
        expect(alive(worker!), `process ${worker} still alive`).to.equal(false);
      },
    );
    expect([cancelled, failed]).to.deep.equal([2, 0]);
    expect(pool.state()).to.deep.include({ busy: 0, queued: 0 });
    expect(await pool.run('check_image', { filePath: path.join(dir, 'small.png'), mimeType: 'image/png', maxPixels: 200_000_000 })).to.equal(null);
    expect(pool.pids()).to.have.length(1).and.not.include(worker);
  });

  it('a task whose signal aborted before its turn never reaches a process', async () => {
    const gone = new AbortController();
    gone.abort();
    const before = pool.pids();
    const code = await pool.run('check_image', { filePath: path.join(dir, 'small.png'), mimeType: 'image/png', maxPixels: 200_000_000 }, gone.signal).then(
      () => 'finished',
      (err: { code?: string }) => err.code,
    );
    expect(code).to.equal('verification_cancelled');
    expect(pool.pids()).to.deep.equal(before);
  });
});

describe('PUBLIC_CONCURRENCY_PER_ADDRESS counts work, not open responses', () => {
  it('a client that hung up keeps its slot until its work has ended; then it may start more', async () => {
    const limits = createRateLimiters({ authRateLimit: 1000, publicRateLimit: 1000, publicConcurrencyPerAddress: 1 });
    /** The request at work: its client's signal, and how to end its work (as a pool process being killed ends). */
    const atWork: { signal: AbortSignal; finish(): void; ended: Promise<void> }[] = [];
    const app = express();
    app.post(
      '/work',
      limits.publicConcurrency(async (_req, res) => {
        const signal = clientSignal(res);
        let finish = () => {};
        const ended = new Promise<void>((resolve) => (finish = resolve));
        atWork.push({ signal, finish, ended });
        await ended;
        if (!signal.aborted) res.json({ done: true });
      }),
    );
    app.use(errorHandler);
    const server: Server = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const first = droppable(base, '/work', Buffer.from('x'), 'x.txt', 'text/plain', 'ignored');
      await until(() => atWork.length === 1, 'the first request at work', 10_000);
      first.hangUp();
      await first.settled;
      await until(() => atWork[0]!.signal.aborted, 'its signal aborted', 10_000);
      // Its response is closed, its work is not over: the address has no slot.
      const refused = await request(base).post('/work').expect(429);
      expect([refused.body.error.code, refused.headers['retry-after']]).to.deep.equal(['too_many_concurrent_requests', '1']);
      expect(atWork).to.have.length(1);
      atWork[0]!.finish();
      // The handler settles (and gives its slot back) on the next turns of the event loop.
      await new Promise((resolve) => setImmediate(resolve));
      const next = request(base).post('/work').then((r) => r);
      await until(() => atWork.length === 2, 'the next request at work', 10_000);
      atWork[1]!.finish();
      const answered = await next;
      expect([answered.status, answered.body]).to.deep.equal([200, { done: true }]);
    } finally {
      for (const w of atWork) w.finish();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('a client that hangs up: its verifications stop, and others are answered', function () {
  this.timeout(300_000);
  const logs = new RecordingLogger();
  let api: TestApi;
  let server: Server;
  let base: string;
  let account: Account;

  before(async () => {
    // One verification process and one task waiting: the smallest pool, the easiest to hold.
    api = await startTestApi({ VERIFY_POOL_SIZE: '1', VERIFY_QUEUE_LIMIT: '1', TRUST_PROXY_HOPS: '1', PUBLIC_RATE_LIMIT: '1000' }, { logger: logs.pino() });
    await initPki({ knex: api.db.knex, vault: createKeyVault(api.config), config: api.config });
    account = await registerAccount(api.app, 'Upload Desk');
    server = api.app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await api?.close();
  });

  const hostile = (address: string) => droppable(base, '/v1/verify', slowSvg(), 'big.svg', 'image/svg+xml', address);
  const poolHeld = () => api.verifyPool.state().busy === 1 && api.verifyPool.state().queued === 1;
  const poolFree = () => api.verifyPool.state().busy === 0 && api.verifyPool.state().queued === 0;
  /** Requests whose client hung up that have ended (the error handler's line, after the limiter let go of them). */
  const disconnections = () => logs.entries.filter((e) => e.msg === 'client disconnected before the answer').length;

  it('six slow verifies from one address, each dropped after a second: their work is stopped, and another client is answered', async () => {
    const workers: number[] = [];
    const [cancelled, limited] = await growth([['mss_verify_pool_rejections_total', { reason: 'cancelled' }], ['mss_public_concurrency_rejections_total']], async () => {
      // Three rounds of two (PUBLIC_CONCURRENCY_PER_ADDRESS): each address's slots come back as its work is stopped.
      for (let round = 0; round < 3; round += 1) {
        const sent = [hostile('203.0.113.66'), hostile('203.0.113.66')];
        await new Promise((resolve) => setTimeout(resolve, 1000));
        await until(() => poolHeld() && api.verifyPool.pids().length === 1, 'one verify at work and one waiting');
        workers.push(...api.verifyPool.pids());
        const ended = disconnections();
        for (const s of sent) s.hangUp();
        // The next round starts once both requests have ended: their pool work stopped, their files removed.
        await until(() => disconnections() === ended + 2, 'both requests ended');
        expect(poolFree(), 'the pool free again').to.equal(true);
      }
    });
    expect(cancelled).to.equal(6);
    expect(limited, 'no round was refused: each one found its slots free').to.equal(0);
    expect(workers).to.have.length(3);
    for (const pid of workers) expect(alive(pid), `process ${pid} that worked on a dropped verify`).to.equal(false);
    const photo = await largePhotoJpeg(600, 400);
    const answer = await request(base).post('/v1/verify').set('X-Forwarded-For', '198.51.100.20').attach('file', photo, 'photo.jpg');
    expect([answer.status, answer.body.validation_state]).to.deep.equal([200, 'none']);
    expect(api.verifyPool.state()).to.deep.include({ busy: 0, queued: 0 });
  });

  it("an organisation's upload is checked in its own pool while public verifications fill theirs", async () => {
    const png = pngBomb(800, 600);
    const upload = () => request(api.app).post('/v1/media/upload').set(bearer(account.access)).attach('file', png, 'desk.png');
    // Its process started before the verification pool is full, as it would be in use.
    expect((await upload()).status).to.equal(201);
    const sent = [hostile('203.0.113.70'), hostile('203.0.113.71')];
    try {
      await until(poolHeld, 'the verification pool full');
      const refused = await request(base).post('/v1/verify').set('X-Forwarded-For', '203.0.113.72').attach('file', slowSvg(), 'big.svg');
      expect([refused.status, refused.body.error?.code]).to.deep.equal([503, 'verification_busy']);
      const uploaded = await upload();
      expect(uploaded.status, JSON.stringify(uploaded.body)).to.equal(201);
      expect(poolHeld(), 'the public verifications still there when the upload was answered').to.equal(true);
      expect(api.uploadCheckPool.pids()).to.have.length(1);
    } finally {
      for (const s of sent) s.hangUp();
      await Promise.all(sent.map((s) => s.settled));
      await until(poolFree, 'the pool free again');
    }
  });

  it('logs what anyone can cause (503 verification_busy, 429, a client that hung up) at warn or info, never error', async () => {
    const from = logs.entries.length;
    const sent = [hostile('203.0.113.80'), hostile('203.0.113.81')];
    try {
      await until(poolHeld, 'the verification pool full');
      const busy = await request(base).post('/v1/verify').set('X-Forwarded-For', '203.0.113.82').attach('file', slowSvg(), 'big.svg');
      expect(busy.status).to.equal(503);
      const tooMany = await Promise.all([0, 1, 2].map(() => request(base).post('/v1/verify').set('X-Forwarded-For', '203.0.113.80').attach('file', slowSvg(), 'big.svg')));
      expect(tooMany.map((r) => r.body.error?.code)).to.include('too_many_concurrent_requests');
    } finally {
      for (const s of sent) s.hangUp();
      await Promise.all(sent.map((s) => s.settled));
      await until(poolFree, 'the pool free again');
    }
    await logs.logged((e) => e.msg === 'client disconnected before the answer' && e.obj.code === 'verification_cancelled');
    const entries = logs.entries.slice(from);
    expect(entries.filter((e) => e.level === 'error' || e.level === 'fatal'), JSON.stringify(entries)).to.deep.equal([]);
    const refusal = (code: string) => entries.find((e) => e.msg === 'request refused' && e.obj.code === code);
    expect(refusal('verification_busy')?.level).to.equal('warn');
    expect(refusal('too_many_concurrent_requests')?.level).to.equal('info');
    for (const status of [503, 429]) {
      const line = entries.find((e) => (e.obj.res as { statusCode?: number } | undefined)?.statusCode === status);
      expect(line?.level, `the request line of a ${status}`).to.equal('info');
    }
    expect(entries.filter((e) => e.msg === 'client disconnected before the answer').every((e) => e.level === 'info')).to.equal(true);
  });
});
