/**
 * Heavy verification work off the API's event loop (api/media/verify-pool.ts) and decompression bombs
 * (MAX_IMAGE_PIXELS, shared/media/image-pixels.ts). How long /health takes meanwhile is measured by
 * bench/api/verify-health.ts, not here: these tests check that it answers, and what every request gets.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import request from 'supertest';
import { initPki } from '../../shared/pki/init.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { growth } from '../metrics/support.js';
import { bearer, registerAccount, startTestApi, type Account, type TestApi } from '../support/api.js';
import { largePhotoJpeg, pngBomb, svgDeclaring } from '../support/bomb-images.js';
import { descendantPids } from '../support/descendants.js';

/** Verification pool processes (members and supervisors) this test process started that are alive. */
const poolProcesses = () => descendantPids('api/media/verify-');
const poolMembers = () => descendantPids('api/media/verify-process.');

/** The API with its PKI (verification judges against the service's roots). */
async function startApiWithPki(env: Record<string, string>): Promise<TestApi> {
  const api = await startTestApi(env);
  await initPki({ knex: api.db.knex, vault: createKeyVault(api.config), config: api.config });
  return api;
}

async function listen(api: TestApi): Promise<Server> {
  const server = api.app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  return server;
}

const url = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

/** Each request from an address of its own (TRUST_PROXY_HOPS=1), so the per-address limit is not what is tested. */
let nextAddress = 1;
const fromNewAddress = () => ({ 'X-Forwarded-For': `198.51.100.${nextAddress++}` });

describe('verification pool: heavy work off the event loop, bounded', function () {
  this.timeout(180_000);
  let api: TestApi;
  let server: Server;
  let photos: Buffer[];
  let bomb: Buffer;

  before(async () => {
    // Defaults for the pool and the pixel limit (200 MP: a 121 MP bomb is decoded, in the pool).
    api = await startApiWithPki({ TRUST_PROXY_HOPS: '1', PUBLIC_RATE_LIMIT: '1000' });
    server = await listen(api);
    photos = await Promise.all([1, 2, 3, 4, 5].map((seed) => largePhotoJpeg(6000, 4000, seed)));
    bomb = pngBomb(11_000, 11_000);
  });
  after(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await api?.close();
    expect(poolProcesses()).to.deep.equal([]);
  });

  it('5 public verifies of a 24 MP JPEG and 3 PNG bombs of 121 MP: all answered, /health answering throughout, never more than VERIFY_POOL_SIZE at work', async () => {
    expect(bomb.length).to.be.below(120_000);
    let probing = true;
    const health: number[] = [];
    let mostBusy = 0;
    const probe = (async () => {
      while (probing) {
        mostBusy = Math.max(mostBusy, api.verifyPool.state().busy);
        health.push((await request(url(server)).get('/health')).status);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const verify = (bytes: Buffer, name: string) => request(url(server)).post('/v1/verify').set(fromNewAddress()).attach('file', bytes, name);
    const answers = await Promise.all([...photos.map((p, i) => verify(p, `photo${i}.jpg`)), ...[1, 2, 3].map((i) => verify(bomb, `bomb${i}.png`))]);
    probing = false;
    await probe;
    for (const a of answers) {
      expect(a.status, JSON.stringify(a.body)).to.equal(200);
      // Unsigned: no manifest, and a fingerprint to recover by.
      expect([a.body.validation_state, a.body.recovered]).to.deep.equal(['none', []]);
      expect(a.body.fingerprint).to.match(/^ISCC:EEA/);
    }
    expect(health.length).to.be.greaterThan(3);
    expect(health.every((s) => s === 200), health.join(' ')).to.equal(true);
    expect(mostBusy).to.equal(api.config.verifyPoolSize);
    expect(poolMembers().length).to.be.at.most(api.config.verifyPoolSize);
  });

  it('a pool process that dies mid-task is a 503 verification_failed with Retry-After; the next request gets a new one', async () => {
    const pending = request(url(server)).post('/v1/matches/byContent').set(fromNewAddress()).set('Content-Type', 'image/png').send(bomb);
    const answer = pending.then((r) => r);
    // The bomb's fingerprint takes seconds: kill the pool's processes while it works.
    for (let i = 0; i < 400 && api.verifyPool.state().busy === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(api.verifyPool.state().busy, 'a pool process at work').to.equal(1);
    const victims = api.verifyPool.pids();
    const [failedCount] = await growth([['mss_verify_pool_rejections_total', { reason: 'failed' }]], async () => {
      for (const pid of victims) process.kill(pid, 'SIGKILL');
      const dead = await answer;
      expect([dead.status, dead.body.error?.code, dead.headers['retry-after']]).to.deep.equal([503, 'verification_failed', '5']);
    });
    expect(failedCount).to.equal(1);
    expect(api.verifyPool.pids()).to.deep.equal([]);
    const next = await request(url(server)).post('/v1/verify').set(fromNewAddress()).attach('file', photos[0]!, 'photo.jpg');
    expect([next.status, next.body.validation_state]).to.deep.equal([200, 'none']);
    expect((await request(url(server)).get('/health')).status).to.equal(200);
  });
});

describe('decompression bombs: MAX_IMAGE_PIXELS from the header, missing pixel data at upload', function () {
  this.timeout(120_000);
  let api: TestApi;
  let acc: Account;

  before(async () => {
    api = await startApiWithPki({ MAX_IMAGE_PIXELS: '50000000', TRUST_PROXY_HOPS: '1', PUBLIC_RATE_LIMIT: '1000' });
    acc = await registerAccount(api.app, 'Bomb Squad');
  });
  after(async () => {
    await api?.close();
  });

  const upload = (bytes: Buffer, name: string) => request(api.app).post('/v1/media/upload').set(bearer(acc.access)).attach('file', bytes, name);

  it('refuses a 121 MP PNG bomb and a 170-byte SVG declaring 9990 x 9990 with 422 image_too_large on upload, verify and byContent, from their header', async () => {
    const svg = svgDeclaring(9990, 9990);
    expect(svg.length).to.be.within(150, 200);
    for (const [bytes, name, type, declared] of [[pngBomb(11_000, 11_000), 'bomb.png', 'image/png', '11000 x 11000'], [svg, 'big.svg', 'image/svg+xml', '9990 x 9990']] as const) {
      const answers = [
        await upload(bytes, name),
        await request(api.app).post('/v1/verify').set(fromNewAddress()).attach('file', bytes, name),
        await request(api.app).post('/v1/media/verify').set(bearer(acc.access)).attach('file', bytes, name),
        await request(api.app).post('/v1/matches/byContent').set(fromNewAddress()).set('Content-Type', type).send(bytes),
      ];
      for (const a of answers) {
        expect([a.status, a.body.error?.code], name).to.deep.equal([422, 'image_too_large']);
        expect(a.body.error.message).to.include(declared).and.include('50000000');
      }
    }
    // Nothing was kept.
    expect((await request(api.app).get('/v1/media/uploads').set(bearer(acc.access))).body.uploads).to.deep.equal([]);
  });

  it('refuses at upload, 400 corrupt_image, an image whose pixel data is missing or cut short; keeps sound ones', async () => {
    // 4000 x 4000 (16 MP, within the limit) with 100 bytes of compressed pixel data: every chunk and CRC well formed.
    const missing = pngBomb(4000, 4000, 100);
    const photo = await largePhotoJpeg(1500, 1000);
    // A JPEG cut in its scan data, its end-of-image marker put back (the structure walk cannot tell).
    const cut = Buffer.concat([photo.subarray(0, Math.floor(photo.length / 2)), Buffer.from([0xff, 0xd9])]);
    for (const [bytes, name] of [[missing, 'missing.png'], [cut, 'cut.jpg']] as const) {
      const res = await upload(bytes, name);
      expect([res.status, res.body.error?.code], name).to.deep.equal([400, 'corrupt_image']);
      expect(res.body.error.message).to.include('damaged or truncated');
    }
    // The same JPEG whole is taken, as is a small PNG that is all there.
    expect((await upload(photo, 'photo.jpg')).status).to.equal(201);
    expect((await upload(pngBomb(400, 300), 'black.png')).status).to.equal(201);
    expect((await request(api.app).get('/v1/media/uploads').set(bearer(acc.access))).body.uploads).to.have.length(2);
  });

  it('allows PUBLIC_CONCURRENCY_PER_ADDRESS (2) public verifies in flight per client address: a third at once is 429 with Retry-After', async () => {
    const photo = await largePhotoJpeg(6000, 4000, 7);
    const from = (address: string) => request(api.app).post('/v1/verify').set('X-Forwarded-For', address).attach('file', photo, 'photo.jpg');
    let answers: request.Response[] = [];
    const [refused] = await growth([['mss_public_concurrency_rejections_total']], async () => {
      answers = await Promise.all([from('203.0.113.7'), from('203.0.113.7'), from('203.0.113.7'), from('203.0.113.8')]);
    });
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 429), statuses.join(' ')).to.have.length(1);
    const limited = answers.find((a) => a.status === 429)!;
    expect([limited.body.error.code, limited.headers['retry-after']]).to.deep.equal(['too_many_concurrent_requests', '1']);
    expect(statuses.filter((s) => s === 200)).to.have.length(3);
    expect(refused).to.equal(1);
    // Done: the address may verify again.
    expect((await from('203.0.113.7')).status).to.equal(200);
  });
});

describe('verification pool: a process that grew past VERIFY_RECYCLE_BYTES is replaced after its task', function () {
  this.timeout(60_000);
  let api: TestApi;

  before(async () => {
    // The least allowed: any process with sharp and c2pa-wasm loaded is past it.
    api = await startApiWithPki({ VERIFY_RECYCLE_BYTES: String(64 * 1024 * 1024) });
  });
  after(async () => {
    await api?.close();
  });

  it('ends the process that did the work; the next task starts another', async () => {
    const photo = await largePhotoJpeg(1500, 1000);
    for (let round = 0; round < 2; round += 1) {
      const res = await request(api.app).post('/v1/verify').attach('file', photo, 'photo.jpg');
      expect([res.status, res.body.validation_state]).to.deep.equal([200, 'none']);
      expect(api.verifyPool.pids()).to.deep.equal([]);
    }
    for (let i = 0; i < 500 && poolMembers().length > 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(poolMembers()).to.deep.equal([]);
  });
});
