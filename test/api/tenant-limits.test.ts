/**
 * What one organisation may hold of what costs the service on every event or in the key vault, with the defaults:
 * MAX_WEBHOOK_ENDPOINTS webhook endpoints and MAX_PENDING_CERTIFICATE_REQUESTS open external-CA requests, each
 * counted per organisation (another organisation is not held back) and under a lock (parallel requests cannot all
 * pass). And a webhook URL whose host resolves to nothing is refused as such, not a server error.
 */
import { expect } from 'chai';
import request from 'supertest';
import { bearer, registerAccount, startTestApi, type Account, type TestApi } from '../support/api.js';

const SUBJECT = { CN: 'Planet Signing', O: 'Planet Ltd', C: 'GB' };

describe('limits per organisation', function () {
  this.timeout(120_000);
  let api: TestApi;
  let a: Account;
  let b: Account;

  before(async () => {
    // As production runs it: no WEBHOOK_ALLOW_PRIVATE. Endpoints on public address literals are never called here.
    api = await startTestApi({});
    a = await registerAccount(api.app, 'Org A');
    b = await registerAccount(api.app, 'Org B');
  });
  after(() => api?.close());

  const hook = (acc: Account, n: number) => request(api.app).post('/org/webhooks').set(bearer(acc.access)).send({ url: `https://93.184.216.34/hooks/${n}`, events: ['sign_job.signed'] });

  it('MAX_WEBHOOK_ENDPOINTS (20): of 25 parallel creations 20 succeed, then 409 with the reason; another organisation is not held back', async () => {
    expect(api.config.webhooks.maxEndpoints).to.equal(20);
    const answers = await Promise.all(Array.from({ length: 25 }, (_, i) => hook(a, i)));
    expect(answers.filter((r) => r.status === 201)).to.have.length(20);
    const refused = answers.filter((r) => r.status !== 201);
    expect(refused.map((r) => r.status)).to.deep.equal([409, 409, 409, 409, 409]);
    expect(refused[0]!.body.error.code).to.equal('webhook_limit_reached');
    expect(refused[0]!.body.error.message).to.match(/at most 20 webhook endpoints \(MAX_WEBHOOK_ENDPOINTS\)/);
    expect((await request(api.app).get('/org/webhooks').set(bearer(a.access)).expect(200)).body.webhooks).to.have.length(20);
    expect((await hook(a, 99)).status).to.equal(409);
    await hook(b, 1).expect(201);
    // Room again once one is deleted.
    await request(api.app).delete(`/org/webhooks/${answers.find((r) => r.status === 201)!.body.webhook_id as string}`).set(bearer(a.access)).expect(204);
    await hook(a, 100).expect(201);
    expect((await hook(a, 101)).status).to.equal(409);
  });

  it('a webhook URL whose host resolves to no address is 422 url_not_resolvable', async () => {
    for (const url of ['https://nonexistent.invalid/h', 'https://localhost./h']) {
      const res = await request(api.app).post('/org/webhooks').set(bearer(b.access)).send({ url, events: ['sign_job.signed'] }).expect(422);
      expect(res.body.error.code, url).to.equal('url_not_resolvable');
    }
    const created = (await request(api.app).get('/org/webhooks').set(bearer(b.access)).expect(200)).body.webhooks as { webhook_id: string }[];
    const patched = await request(api.app).patch(`/org/webhooks/${created[0]!.webhook_id}`).set(bearer(b.access)).send({ url: 'https://nonexistent.invalid/h' }).expect(422);
    expect(patched.body.error.code).to.equal('url_not_resolvable');
  });

  const ask = (acc: Account) => request(api.app).post('/org/signing-certificate/requests').set(bearer(acc.access)).send(SUBJECT);
  const withdraw = (acc: Account, id: string) => request(api.app).post(`/org/signing-certificate/requests/${id}/withdraw`).set(bearer(acc.access));

  it('MAX_PENDING_CERTIFICATE_REQUESTS (5): of 7 parallel requests 5 make a key, then 409 with the reason; a withdrawn one makes room', async () => {
    expect(api.config.maxPendingCertificateRequests).to.equal(5);
    const answers = await Promise.all(Array.from({ length: 7 }, () => ask(a)));
    expect(answers.map((r) => r.status).sort()).to.deep.equal([201, 201, 201, 201, 201, 409, 409]);
    const refused = answers.find((r) => r.status === 409)!;
    expect(refused.body.error.code).to.equal('too_many_pending_requests');
    expect(refused.body.error.message).to.match(/MAX_PENDING_CERTIFICATE_REQUESTS/).and.match(/withdraw/);
    const listed = (await request(api.app).get('/org/signing-certificate/requests').set(bearer(a.access)).expect(200)).body.requests as { request_id: string; status: string }[];
    expect(listed.map((r) => r.status)).to.deep.equal(['pending', 'pending', 'pending', 'pending', 'pending']);

    // Another organisation asks for its own.
    await ask(b).expect(201);
    // It cannot withdraw A's; A withdraws one, once.
    const first = listed[0]!.request_id;
    await withdraw(b, first).expect(404);
    const withdrawn = (await withdraw(a, first).expect(200)).body;
    expect(withdrawn).to.deep.include({ request_id: first, status: 'failed', error: { code: 'withdrawn', message: 'withdrawn by an admin' } });
    expect((await withdraw(a, first).expect(409)).body.error.code).to.equal('request_not_pending');
    // A withdrawn request takes no chain.
    const chain = await request(api.app).post(`/org/signing-certificate/requests/${first}/chain`).set(bearer(a.access)).send({ chain_pem: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n' }).expect(409);
    expect(chain.body.error.code).to.equal('request_not_pending');
    await ask(a).expect(201);
    expect((await ask(a).expect(409)).body.error.code).to.equal('too_many_pending_requests');
  });
});
