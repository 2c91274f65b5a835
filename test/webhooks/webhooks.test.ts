import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import request from 'supertest';
import { startTsaService, type TsaService } from '../../ocsp/tsa-service.js';
import { createLogger } from '../../shared/logger.js';
import { initPki } from '../../shared/pki/init.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { bearer, registerAccount, startTestApi, submitSign, waitForJob, type Account, type TestApi } from '../support/api.js';
import { noisePng } from '../support/noise-png.js';
import { startTestWorker, type RoleProcess } from '../support/processes.js';
import { rejection } from '../support/rejection.js';
import { until } from '../support/until.js';
import { createWebhook } from '../../api/services/webhooks.js';
import { ServiceError } from '../../shared/errors.js';
import { recordExpiryNotices } from '../../shared/pki/expiry-notices.js';
import { startAnvil } from '../../shared/chain/anvil.js';
import { recordWebhookEvent } from '../../shared/db/repositories/webhooks.js';
import { anchorJob, mine } from '../chain/support.js';

interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
  answered: number | 'hung';
}

/** A receiver on a loopback port; each path answers as `behaviour` says (a status, or 'hang': never answer). */
class Receiver {
  readonly received: Received[] = [];
  readonly behaviour = new Map<string, (r: Received, n: number) => number | 'hang'>();
  private readonly hung = new Set<http.ServerResponse>();
  private server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = { path: req.url!, headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString(), answered: 200 };
      const n = this.received.filter((x) => x.path === r.path && x.headers['webhook-id'] === r.headers['webhook-id']).length;
      this.received.push(r);
      const answer = (this.behaviour.get(r.path) ?? (() => 200))(r, n);
      r.answered = answer === 'hang' ? 'hung' : answer;
      if (answer === 'hang') this.hung.add(res);
      else res.writeHead(answer).end('ok');
    });
  });
  port = 0;
  async start() {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }
  url(path: string) {
    return `http://127.0.0.1:${this.port}${path}`;
  }
  at(path: string) {
    return this.received.filter((r) => r.path === path);
  }
  dropHung() {
    for (const res of this.hung) res.destroy();
    this.hung.clear();
  }
  async close() {
    this.dropHung();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

const WEBHOOK_ENV = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_BACKOFF_MS: '200', WEBHOOK_ATTEMPTS: '4', WEBHOOK_RELAY_INTERVAL_MS: '100', WEBHOOK_TIMEOUT_MS: '60000' };

describe('webhooks: Standard Webhooks deliveries from the worker role', function () {
  this.timeout(180_000);
  let api: TestApi;
  let a: Account;
  let b: Account;
  let tsa: TsaService;
  let startTsa: (port: number) => Promise<TsaService>;
  let worker: RoleProcess | undefined;
  const receiver = new Receiver();

  // More time to start (a loaded machine) and one sandbox.
  const startWorker = () =>
    startTestWorker(
      api,
      `http://127.0.0.1:${tsa.port}`,
      {
        WORKER_CONCURRENCY: '1',
        ...WEBHOOK_ENV,
        JWT_SECRET: api.config.jwtSecret,
        WORKER_LOCK_MS: '3000',
        RECONCILE_INTERVAL_MS: '500',
        // Disabled at the first delivery that fails for good (production: 72 hours of failures).
        WEBHOOK_DISABLE_AFTER_HOURS: '0',
      },
      150_000,
    );
  const create = (acc: Account, path: string, events: string[]) =>
    request(api.app).post('/org/webhooks').set(bearer(acc.access)).send({ url: receiver.url(path), events }).expect(201).then((r) => r.body as { webhook_id: string; secret: string });
  const verify = (secret: string, r: Received) => new Webhook(secret).verify(r.body, r.headers) as { id: string; type: string; data: Record<string, unknown> };

  before(async () => {
    api = await startTestApi({ ...WEBHOOK_ENV, SIGN_ATTEMPTS: '2', SIGN_BACKOFF_MS: '200' });
    const vault = createKeyVault(api.config);
    await initPki({ knex: api.db.knex, vault, config: api.config });
    startTsa = (port) => startTsaService({ tsaPort: port, tsaPolicyOid: api.config.tsaPolicyOid }, api.db.knex, vault, createLogger('silent', 'tsa'), { host: '127.0.0.1' });
    tsa = await startTsa(0);
    a = await registerAccount(api.app, 'Org A');
    b = await registerAccount(api.app, 'Org B');
    await receiver.start();
    worker = await startWorker();
  });
  after(async () => {
    await worker?.stop();
    await receiver.close();
    await tsa?.close();
    await api.close();
  });

  it('creates an endpoint with a whsec_ secret shown once; lists, updates and deletes it; refuses bad events', async () => {
    const made = await create(a, '/crud', ['sign_job.signed']);
    expect(made.secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(made.secret.slice(6), 'base64')).to.have.length(32);
    const list = await request(api.app).get('/org/webhooks').set(bearer(a.access)).expect(200);
    const listed = list.body.webhooks.find((w: { webhook_id: string }) => w.webhook_id === made.webhook_id);
    expect(listed).to.include({ url: receiver.url('/crud'), enabled: true });
    expect(listed).to.not.have.property('secret');
    expect(JSON.stringify(list.body)).to.not.contain(made.secret.slice(6));
    // Stored encrypted: the secret is nowhere in the row.
    const row = await api.db.knex('webhook_endpoints').where({ id: made.webhook_id }).first();
    expect(JSON.stringify(row)).to.not.contain(made.secret.slice(6));
    const patched = await request(api.app).patch(`/org/webhooks/${made.webhook_id}`).set(bearer(a.access)).send({ events: ['sign_job.failed', 'file.anchored'] }).expect(200);
    expect(patched.body.events).to.deep.equal(['sign_job.failed', 'file.anchored']);
    const bad = await request(api.app).post('/org/webhooks').set(bearer(a.access)).send({ url: receiver.url('/x'), events: ['sign_job.exploded'] }).expect(400);
    expect(bad.body.error.code).to.equal('validation_error');
    await request(api.app).delete(`/org/webhooks/${made.webhook_id}`).set(bearer(a.access)).expect(204);
    await request(api.app).get(`/org/webhooks/${made.webhook_id}`).set(bearer(a.access)).expect(404);
  });

  it('refuses endpoints on private, loopback and link-local addresses and plain http without WEBHOOK_ALLOW_PRIVATE', async () => {
    // The service as a production API runs it (WEBHOOK_ALLOW_PRIVATE unset); the test API itself allows loopback.
    const strict = { ...api.config, webhooks: { ...api.config.webhooks, allowPrivate: false } };
    for (const url of ['https://127.0.0.1/hook', 'https://localhost/hook', 'https://169.254.169.254/latest', 'https://[::1]/x', 'https://10.0.0.8/x', 'http://example.com/hook', receiver.url('/p')]) {
      const err = await rejection(createWebhook(api.db.knex, strict, a.orgId, { url, events: ['sign_job.signed'] }, { type: 'operator', command: 'test' }));
      expect(err, url).to.be.instanceOf(ServiceError);
      expect((err as ServiceError).kind, url).to.equal('unprocessable');
      expect((err as ServiceError).code, url).to.equal('url_not_allowed');
    }
    expect((await request(api.app).get('/org/webhooks').set(bearer(a.access)).expect(200)).body.webhooks).to.deep.equal([]);
    // Over HTTP the same refusal is a 422 (a credentials URL is refused whatever the setting).
    const res = await request(api.app).post('/org/webhooks').set(bearer(a.access)).send({ url: 'https://user:pw@example.com/', events: ['sign_job.signed'] }).expect(422);
    expect(res.body.error.code).to.equal('url_not_allowed');
  });

  it('keeps organisations apart: B cannot see, change or read the deliveries of A’s endpoint', async () => {
    const made = await create(a, '/iso', ['signing_certificate.rotated']);
    expect((await request(api.app).get('/org/webhooks').set(bearer(b.access)).expect(200)).body.webhooks).to.deep.equal([]);
    await request(api.app).get(`/org/webhooks/${made.webhook_id}`).set(bearer(b.access)).expect(404);
    await request(api.app).patch(`/org/webhooks/${made.webhook_id}`).set(bearer(b.access)).send({ url: receiver.url('/stolen') }).expect(404);
    await request(api.app).post(`/org/webhooks/${made.webhook_id}/rotate-secret`).set(bearer(b.access)).expect(404);
    await request(api.app).get(`/org/webhooks/${made.webhook_id}/deliveries`).set(bearer(b.access)).expect(404);
    await request(api.app).delete(`/org/webhooks/${made.webhook_id}`).set(bearer(b.access)).expect(404);
    await request(api.app).delete(`/org/webhooks/${made.webhook_id}`).set(bearer(a.access)).expect(204);
  });

  it('delivers sign_job.signed once per signed job with the job view, to its own organisation only; a wrong secret fails verification', async () => {
    const hookA = await create(a, '/signed-a', ['sign_job.signed']);
    const hookB = await create(b, '/signed-b', ['sign_job.signed', 'sign_job.failed', 'file.anchored']);
    const jobs = [];
    for (let i = 0; i < 3; i++) jobs.push(await submitSign(api.app, a, noisePng(40 + i, 30), `photo-${i}.png`));
    for (const id of jobs) expect((await waitForJob(api.app, a, id)).status).to.equal('signed');
    const got = await until('three deliveries', () => receiver.at('/signed-a').length >= 3 && receiver.at('/signed-a'));
    const events = got.map((r) => verify(hookA.secret, r));
    expect(events.map((e) => e.type)).to.deep.equal(['sign_job.signed', 'sign_job.signed', 'sign_job.signed']);
    expect(events.map((e) => e.data.job_id).sort()).to.deep.equal([...jobs].sort());
    for (const e of events) {
      const view = await request(api.app).get(`/v1/media/jobs/${e.data.job_id as string}`).set(bearer(a.access)).expect(200);
      expect(e.data).to.deep.equal(view.body);
      expect(e.id).to.match(/^evt_[0-9a-f]{32}$/);
    }
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).to.equal(3);
    // The wrong secret (B's) does not verify A's deliveries.
    expect(() => verify(hookB.secret, got[0]!)).to.throw(/signature/i);
    // Once per job: the log shows one delivered delivery each, with its attempt.
    const log = await request(api.app).get(`/org/webhooks/${hookA.webhook_id}/deliveries`).set(bearer(a.access)).expect(200);
    expect(log.body.deliveries).to.have.length(3);
    for (const d of log.body.deliveries) {
      expect(d).to.include({ status: 'delivered', attempts: 1, response_status: 200, event_type: 'sign_job.signed' });
      expect(d.attempt_log).to.have.length(1);
      expect(d.attempt_log[0].duration_ms).to.be.a('number');
    }
    expect(receiver.at('/signed-b')).to.have.length(0);
    await request(api.app).delete(`/org/webhooks/${hookA.webhook_id}`).set(bearer(a.access)).expect(204);
  });

  it('delivers sign_job.failed with the failed job view once a job fails for good, to its own organisation only', async () => {
    const hook = await create(a, '/failed', ['sign_job.failed']);
    // The time-stamp authority goes away: every attempt fails (timestamp_unavailable) and the job fails for good.
    const tsaPort = tsa.port;
    await tsa.close();
    let jobId: string;
    try {
      jobId = await submitSign(api.app, a, noisePng(70, 30), 'doomed.png');
      expect((await waitForJob(api.app, a, jobId)).status).to.equal('failed');
    } finally {
      tsa = await startTsa(tsaPort);
    }
    const r = await until('the delivery', () => receiver.at('/failed')[0]);
    const event = verify(hook.secret, r);
    expect(event.type).to.equal('sign_job.failed');
    const view = await request(api.app).get(`/v1/media/jobs/${jobId}`).set(bearer(a.access)).expect(200);
    expect(event.data).to.deep.equal(view.body);
    expect(view.body).to.deep.include({ status: 'failed' });
    expect(view.body.error.code).to.equal('timestamp_unavailable');
    // Once, whatever the attempts before it; B (listening for sign_job.failed too) hears nothing of A's job.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.at('/failed')).to.have.length(1);
    expect(receiver.at('/signed-b')).to.have.length(0);
    await request(api.app).delete(`/org/webhooks/${hook.webhook_id}`).set(bearer(a.access)).expect(204);
  });

  it('delivers file.anchored with the anchored job view and its proof once the batch holding the file is confirmed on chain', async () => {
    const hook = await create(a, '/anchored', ['file.anchored']);
    const jobId = await submitSign(api.app, a, noisePng(80, 30), 'anchor-me.png');
    expect((await waitForJob(api.app, a, jobId)).status).to.equal('signed');
    expect(receiver.at('/anchored'), 'nothing before the anchor').to.have.length(0);
    const node = await startAnvil({ mining: 'auto' });
    try {
      // The scheduler's anchoring job, run by hand: every pending leaf in one batch, sealed at once.
      const { job } = anchorJob(api.db.knex, node.url, { expectedChainId: node.chainId, settings: { batchSize: 1000, batchMaxAgeMs: 0 } });
      try {
        await until('the job anchored', async () => {
          await job.run();
          await mine(node.url);
          return (await api.db.knex('sign_jobs').where({ id: jobId }).first('status')).status === 'anchored';
        });
      } finally {
        await job.stop();
      }
    } finally {
      await node.stop();
    }
    const delivered = await until('the delivery', () => receiver.at('/anchored').find((x) => verify(hook.secret, x).data.job_id === jobId));
    const event = verify(hook.secret, delivered);
    expect(event.type).to.equal('file.anchored');
    const view = await request(api.app).get(`/v1/media/jobs/${jobId}`).set(bearer(a.access)).expect(200);
    expect(view.body.status).to.equal('anchored');
    expect(event.data).to.deep.equal(view.body);
    expect(view.body.anchor.proof).to.include({ format: 'mss-anchor-v1', file_sha256: view.body.signed_file.sha256 });
    // One event per anchored file of A's: earlier tests' signed files were in the batch too.
    const ids = receiver.at('/anchored').map((x) => verify(hook.secret, x).data.job_id);
    expect(new Set(ids).size).to.equal(ids.length);
    expect(receiver.at('/signed-b')).to.have.length(0);
    await request(api.app).delete(`/org/webhooks/${hook.webhook_id}`).set(bearer(a.access)).expect(204);
  });

  it('pages the delivery log newest first with a cursor, each delivery once; a cursor it did not make is a 400', async () => {
    const hook = await create(a, '/paged', ['signing_certificate.expiring']);
    // Five events recorded as the service records them, most within the same millisecond (ties go by id).
    for (let i = 0; i < 5; i++) await recordWebhookEvent(api.db.knex, { orgId: a.orgId, type: 'signing_certificate.expiring', data: { n: i } });
    const log = (query: string) => request(api.app).get(`/org/webhooks/${hook.webhook_id}/deliveries${query}`).set(bearer(a.access));
    const all = (await log('').expect(200)).body;
    expect(all.deliveries).to.have.length(5);
    expect(all.next_cursor).to.equal(null);
    const paged: string[] = [];
    const sizes: number[] = [];
    for (let cursor: string | null = '', pages = 0; cursor !== null && pages < 10; pages++) {
      const page = (await log(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`).expect(200)).body as { deliveries: { delivery_id: string }[]; next_cursor: string | null };
      sizes.push(page.deliveries.length);
      paged.push(...page.deliveries.map((d) => d.delivery_id));
      cursor = page.next_cursor;
    }
    expect(sizes).to.deep.equal([2, 2, 1]);
    expect(paged).to.deep.equal(all.deliveries.map((d: { delivery_id: string }) => d.delivery_id));
    const bad = await log('?cursor=not-a-cursor').expect(400);
    expect(bad.body.error.code).to.equal('invalid_parameter');
    // Another organisation's admin cannot page it, with or without a cursor.
    await request(api.app).get(`/org/webhooks/${hook.webhook_id}/deliveries?limit=2`).set(bearer(b.access)).expect(404);
    await until('the deliveries made', () => receiver.at('/paged').length >= 5);
    await request(api.app).delete(`/org/webhooks/${hook.webhook_id}`).set(bearer(a.access)).expect(204);
  });

  it('retries a receiver that answers 500 twice with the same event id; the third attempt is delivered and logged', async () => {
    const hook = await create(a, '/flaky', ['signing_certificate.rotated']);
    receiver.behaviour.set('/flaky', (_r, n) => (n < 2 ? 500 : 200));
    await request(api.app).post('/org/signing-certificate/rotate').set(bearer(a.access)).expect(201);
    const got = await until('three attempts', () => receiver.at('/flaky').length >= 3 && receiver.at('/flaky'));
    expect(got.map((r) => r.answered)).to.deep.equal([500, 500, 200]);
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).to.equal(1);
    for (const r of got) expect(verify(hook.secret, r).type).to.equal('signing_certificate.rotated');
    const event = verify(hook.secret, got[2]!);
    const current = await request(api.app).get('/org/signing-certificate').set(bearer(a.access)).expect(200);
    expect(event.data.serial).to.equal(current.body.current.serial);
    const log = await until('the log', async () => {
      const res = await request(api.app).get(`/org/webhooks/${hook.webhook_id}/deliveries`).set(bearer(a.access)).expect(200);
      return res.body.deliveries[0]?.status === 'delivered' && res.body.deliveries[0];
    });
    expect(log.attempt_log.map((x: { response_status: number }) => x.response_status)).to.deep.equal([500, 500, 200]);
    // Redelivery of that event: the same id once more.
    await request(api.app).post(`/org/webhooks/${hook.webhook_id}/deliveries/${log.delivery_id}/redeliver`).set(bearer(a.access)).expect(202);
    const again = await until('the redelivery', () => receiver.at('/flaky').length >= 4 && receiver.at('/flaky')[3]);
    expect(again.headers['webhook-id']).to.equal(got[0]!.headers['webhook-id']);
    await request(api.app).delete(`/org/webhooks/${hook.webhook_id}`).set(bearer(a.access)).expect(204);
  });

  it('signs with the old and the new secret during a rotation’s grace period', async () => {
    const hook = await create(a, '/rotating', ['signing_certificate.rotated']);
    const rotated = await request(api.app).post(`/org/webhooks/${hook.webhook_id}/rotate-secret`).set(bearer(a.access)).expect(200);
    expect(rotated.body.secret).to.match(/^whsec_/).and.not.equal(hook.secret);
    expect(rotated.body.secret_rotation.previous_secret_expires_at).to.be.a('string');
    await request(api.app).post('/org/signing-certificate/rotate').set(bearer(a.access)).expect(201);
    const r = await until('a delivery', () => receiver.at('/rotating')[0]);
    expect(r.headers['webhook-signature']!.split(' ')).to.have.length(2);
    expect(verify(rotated.body.secret as string, r).type).to.equal('signing_certificate.rotated');
    expect(verify(hook.secret, r).type).to.equal('signing_certificate.rotated');
    expect(() => verify(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, r)).to.throw();
    await request(api.app).delete(`/org/webhooks/${hook.webhook_id}`).set(bearer(a.access)).expect(204);
  });

  it('signing_certificate.expiring is recorded once per certificate and delivered', async () => {
    const hook = await create(a, '/expiring', ['signing_certificate.expiring']);
    // Every certificate is within 400 days of its end (leaves live LEAF_VALIDITY_DAYS, 365).
    expect(await recordExpiryNotices(api.db.knex, 400)).to.equal(1);
    expect(await recordExpiryNotices(api.db.knex, 400)).to.equal(0);
    const r = await until('the delivery', () => receiver.at('/expiring')[0]);
    const event = verify(hook.secret, r);
    const current = await request(api.app).get('/org/signing-certificate').set(bearer(a.access)).expect(200);
    expect(event).to.deep.include({ type: 'signing_certificate.expiring' });
    expect(event.data).to.include({ serial: current.body.current.serial, status: 'valid', not_after: current.body.current.not_after });
    await request(api.app).delete(`/org/webhooks/${hook.webhook_id}`).set(bearer(a.access)).expect(204);
  });

  it('an endpoint failing every attempt is disabled with the reason shown to its admin; its deliveries stop', async () => {
    const hook = await create(a, '/down', ['signing_certificate.rotated']);
    receiver.behaviour.set('/down', () => 503);
    await request(api.app).post('/org/signing-certificate/rotate').set(bearer(a.access)).expect(201);
    const shown = await until('disabled', async () => {
      const res = await request(api.app).get(`/org/webhooks/${hook.webhook_id}`).set(bearer(a.access)).expect(200);
      return !res.body.enabled && res.body;
    });
    expect(shown.disabled_reason).to.match(/every delivery attempt failed since .* \(last: HTTP 503\)/);
    expect(receiver.at('/down')).to.have.length(4); // WEBHOOK_ATTEMPTS
    const log = await request(api.app).get(`/org/webhooks/${hook.webhook_id}/deliveries`).set(bearer(a.access)).expect(200);
    expect(log.body.deliveries[0]).to.include({ status: 'failed', attempts: 4, response_status: 503 });
    // Disabled: no new event is recorded for it, and a redelivery asks for it to be enabled first.
    await request(api.app).post(`/org/webhooks/${hook.webhook_id}/deliveries/${log.body.deliveries[0].delivery_id}/redeliver`).set(bearer(a.access)).expect(409);
    await request(api.app).post('/org/signing-certificate/rotate').set(bearer(a.access)).expect(201);
    expect((await request(api.app).get(`/org/webhooks/${hook.webhook_id}/deliveries`).set(bearer(a.access)).expect(200)).body.deliveries).to.have.length(1);
    const enabled = await request(api.app).patch(`/org/webhooks/${hook.webhook_id}`).set(bearer(a.access)).send({ enabled: true }).expect(200);
    expect(enabled.body).to.include({ enabled: true, disabled_reason: null });
    await request(api.app).delete(`/org/webhooks/${hook.webhook_id}`).set(bearer(a.access)).expect(204);
  });

  it('a killed worker loses no delivery: after a restart every event arrives, none twice to a receiver that answered 2xx', async () => {
    const hook = await create(a, '/kill', ['sign_job.signed']);
    let hang = true;
    receiver.behaviour.set('/kill', () => (hang ? 'hang' : 200));
    const jobs = [];
    for (let i = 0; i < 3; i++) jobs.push(await submitSign(api.app, a, noisePng(50 + i, 30), `k-${i}.png`));
    for (const id of jobs) expect((await waitForJob(api.app, a, id)).status).to.equal('signed');
    // Every event's first attempt is in flight (the receiver holds it) when the worker dies.
    await until('attempts in flight', () => new Set(receiver.at('/kill').map((r) => r.headers['webhook-id'])).size >= 3);
    await worker!.kill();
    worker = undefined;
    hang = false;
    receiver.dropHung();
    worker = await startWorker();
    const answered = await until(
      'every event answered 2xx',
      () => {
        const ok = receiver.at('/kill').filter((r) => r.answered === 200);
        return new Set(ok.map((r) => r.headers['webhook-id'])).size >= 3 && ok;
      },
      90_000,
    );
    const ids = answered.map((r) => r.headers['webhook-id']);
    expect(new Set(ids).size, 'no event answered 2xx twice').to.equal(ids.length);
    expect(answered.map((r) => verify(hook.secret, r).data.job_id).sort()).to.deep.equal([...jobs].sort());
    await until('deliveries recorded', async () => {
      const rows = (await api.db.knex('webhook_deliveries').where({ endpoint_id: hook.webhook_id }).select('status')) as { status: string }[];
      return rows.length === 3 && rows.every((r) => r.status === 'delivered');
    });
    // The restarted worker's metrics: its deliveries by outcome, their latency and the webhook queue's depth.
    const opsPort = /"port":(\d+)[^\n]*"msg":"operator listener/.exec(worker!.output());
    expect(opsPort, worker!.output()).to.not.equal(null);
    const metrics = await (await fetch(`http://127.0.0.1:${opsPort![1]}/metrics`)).text();
    expect(metrics).to.match(/mss_webhook_deliveries_total\{outcome="delivered"\} [3-9]/);
    expect(metrics).to.match(/mss_webhook_delivery_seconds_count\{result="success"\} [3-9]/);
    expect(metrics).to.match(/mss_webhook_queue_jobs\{state="waiting"\} \d+/);
  });
});
