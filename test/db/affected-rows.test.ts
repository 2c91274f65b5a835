/**
 * What the repositories answer about the rows a change touched (deleted, updated, none) is the same on Postgres and on
 * PGlite (`npm start`'s embedded database): every repository function whose answer is an affected-row count, run on
 * both drivers. Then the API's deletes over HTTP on PGlite: 204, once, and 404 for another organisation.
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { expect } from 'chai';
import request from 'supertest';
import { markBatchConfirmed } from '../../shared/db/repositories/anchors.js';
import { deleteAnsweredCertificateRequests, insertCertificateRequest, markCertificateRequestFailed } from '../../shared/db/repositories/certificate-requests.js';
import { insertExternalRequest, markRequestAccepted, markRequestPending } from '../../shared/db/repositories/external-certificates.js';
import { markTemplateDeleted } from '../../shared/db/repositories/manifest-templates.js';
import { deleteOrganisationTrustAnchor, insertOrganisationTrustAnchor } from '../../shared/db/repositories/organisation-trust-anchors.js';
import { insertOrganisation } from '../../shared/db/repositories/organisations.js';
import { failPendingSignJob } from '../../shared/db/repositories/sign-jobs.js';
import {
  deleteOrgWebhookEndpoint,
  disableWebhookEndpoint,
  insertWebhookEndpoint,
  recordDeliveryAttempt,
  recordWebhookEvent,
  resetDeliveryForRedelivery,
} from '../../shared/db/repositories/webhooks.js';
import type { Knex } from '../../shared/db/knex.js';
import { bearer, registerAccount, startTestApi, type TestApi } from '../support/api.js';
import { createPgliteTestDatabase, createTestDatabase, type TestDatabase } from '../support/database.js';
import { makeOpensslChain, type OpensslChain } from '../support/openssl-chain.js';

const DRIVERS = [
  ['Postgres', createTestDatabase],
  ['PGlite', createPgliteTestDatabase],
] as const;

for (const [driver, open] of DRIVERS) {
  describe(`repositories: affected rows on ${driver}`, function () {
    this.timeout(60_000);
    let db: TestDatabase;
    let knex: Knex;
    let orgA: string;
    let orgB: string;

    before(async () => {
      db = await open();
      knex = db.knex;
      orgA = (await insertOrganisation('Org A', knex)).id;
      orgB = (await insertOrganisation('Org B', knex)).id;
    });
    after(async () => {
      await db?.drop();
    });

    const endpoint = (orgId: string) => insertWebhookEndpoint({ org_id: orgId, url: 'https://hooks.example.com/x', events: ['sign_job.signed'], description: '', secret_enc: 'sealed' }, knex);

    it('deleting a webhook endpoint: true once for its organisation, false for another or a second time', async () => {
      const { id } = await endpoint(orgA);
      expect(await deleteOrgWebhookEndpoint(orgB, id, knex)).to.equal(false);
      expect(await deleteOrgWebhookEndpoint(orgA, id, knex)).to.equal(true);
      expect(await deleteOrgWebhookEndpoint(orgA, id, knex)).to.equal(false);
    });

    it('disabling an endpoint: true when it was enabled, false when it already was disabled', async () => {
      const { id } = await endpoint(orgA);
      expect(await disableWebhookEndpoint(id, 'failing', knex)).to.equal(true);
      expect(await disableWebhookEndpoint(id, 'failing', knex)).to.equal(false);
    });

    it('redelivery: false while the delivery is pending, true once it was delivered', async () => {
      const { id } = await endpoint(orgB);
      await recordWebhookEvent(knex, { orgId: orgB, type: 'sign_job.signed', data: {} });
      const [delivery] = (await knex('webhook_deliveries').where({ endpoint_id: id }).select('id')) as { id: string }[];
      expect(await resetDeliveryForRedelivery(delivery!.id, knex)).to.equal(false);
      await recordDeliveryAttempt(delivery!.id, { number: 1, at: new Date(), outcome: 'delivered', responseStatus: 200, durationMs: 3, error: null, final: true }, knex);
      expect(await resetDeliveryForRedelivery(delivery!.id, knex)).to.equal(true);
    });

    it('deleting an organisation trust anchor: true once for its organisation, false for another or a second time', async () => {
      const anchor = await insertOrganisationTrustAnchor({ org_id: orgA, label: 'partner', pem: 'pem', subject: 'CN=Partner', fingerprint_sha256: 'a'.repeat(64), not_after: new Date(), added_by: null }, knex);
      expect(await deleteOrganisationTrustAnchor(orgB, anchor.id, knex)).to.equal(false);
      expect(await deleteOrganisationTrustAnchor(orgA, anchor.id, knex)).to.equal(true);
      expect(await deleteOrganisationTrustAnchor(orgA, anchor.id, knex)).to.equal(false);
    });

    it('dropping answered certificate requests counts the rows dropped', async () => {
      const answered = await insertCertificateRequest(knex, orgA, 'ensure');
      await insertCertificateRequest(knex, orgA, 'rotate');
      await markCertificateRequestFailed(knex, answered, 'issuance_failed', 'no');
      const later = new Date(Date.now() + 60_000);
      expect(await deleteAnsweredCertificateRequests(knex, later)).to.equal(1);
      expect(await deleteAnsweredCertificateRequests(knex, later)).to.equal(0);
    });

    it('accepting an external CA chain: only a pending request of the organisation, once', async () => {
      const id = await insertExternalRequest(knex, orgA, { CN: 'A', O: 'A', C: 'GB' }, (requestId) => `org-${orgA}-ext-${requestId}`);
      const fields = { chainPem: 'pem', serial: '01', subject: 'CN=A', issuer: 'CN=CA', notBefore: new Date(), notAfter: new Date(), fingerprintSha256: 'b'.repeat(64) };
      expect(await markRequestAccepted(knex, orgA, id, fields), 'still being created').to.equal(false);
      await markRequestPending(knex, id, 'csr');
      expect(await markRequestAccepted(knex, orgB, id, fields)).to.equal(false);
      expect(await markRequestAccepted(knex, orgA, id, fields)).to.equal(true);
      expect(await markRequestAccepted(knex, orgA, id, fields)).to.equal(false);
    });

    it('confirming an anchor batch: true when it was sent, false once confirmed', async () => {
      const [{ id }] = (await knex('anchor_batches').insert({ status: 'sent', root: 'c'.repeat(64), leaf_count: 1, nonce: 7 }).returning('id')) as { id: number }[];
      const anchor = { txHash: `0x${'d'.repeat(64)}`, nonce: 7, blockNumber: 12, blockHash: `0x${'e'.repeat(64)}`, blockTime: new Date() };
      expect(await knex.transaction((trx) => markBatchConfirmed(Number(id), anchor, trx))).to.equal(true);
      expect(await knex.transaction((trx) => markBatchConfirmed(Number(id), anchor, trx))).to.equal(false);
    });

    it('failing a sign job: true while it is queued, false once it failed', async () => {
      const uploadId = randomUUID();
      const jobId = randomUUID();
      await knex('uploads').insert({ id: uploadId, org_id: orgA, filename: 'a.jpg', mime_type: 'image/jpeg', size: 1, sha256: 'f'.repeat(64), storage_key: 'k' });
      await knex('sign_jobs').insert({ id: jobId, org_id: orgA, upload_id: uploadId, manifest: JSON.stringify({}), status: 'queued' });
      const error = { error_code: 'internal_error', error_message: 'no' };
      expect(await failPendingSignJob(jobId, error, knex)).to.equal(true);
      expect(await failPendingSignJob(jobId, error, knex)).to.equal(false);
    });

    it('deleting a manifest template: true once for its organisation, false for another or a second time', async () => {
      const id = randomUUID();
      await knex('manifest_templates').insert({ id, org_id: orgA, name: 'news', version: 1, manifest: JSON.stringify({}) });
      expect(await markTemplateDeleted(orgB, id, knex)).to.equal(false);
      expect(await markTemplateDeleted(orgA, id, knex)).to.equal(true);
      expect(await markTemplateDeleted(orgA, id, knex)).to.equal(false);
    });
  });
}

describe('the API on PGlite: deletes answer 204', function () {
  this.timeout(120_000);
  let api: TestApi;
  let partner: OpensslChain;

  before(async () => {
    partner = await makeOpensslChain({ cn: 'Partner Agency' });
    api = await startTestApi({ WEBHOOK_ALLOW_PRIVATE: 'true' }, { database: 'pglite' });
  });
  after(async () => {
    await api?.close();
    if (partner) rmSync(partner.dir, { recursive: true, force: true });
  });

  it('a webhook endpoint and an organisation anchor: 204, then 404; another organisation cannot delete them', async () => {
    const a = await registerAccount(api.app, 'Org A');
    const b = await registerAccount(api.app, 'Org B');
    const hook = await request(api.app).post('/org/webhooks').set(bearer(a.access)).send({ url: 'http://127.0.0.1:9/hook', events: ['sign_job.signed'] }).expect(201);
    const anchor = await request(api.app).post('/org/trust-anchors').set(bearer(a.access)).send({ pem: partner.pem.root }).expect(201);
    for (const path of [`/org/webhooks/${hook.body.webhook_id as string}`, `/org/trust-anchors/${anchor.body.anchor_id as string}`]) {
      await request(api.app).delete(path).set(bearer(b.access)).expect(404);
      await request(api.app).delete(path).set(bearer(a.access)).expect(204);
      await request(api.app).delete(path).set(bearer(a.access)).expect(404);
    }
    expect((await request(api.app).get('/org/webhooks').set(bearer(a.access)).expect(200)).body.webhooks).to.deep.equal([]);
    expect((await request(api.app).get('/org/trust-anchors').set(bearer(a.access)).expect(200)).body.trust_anchors).to.deep.equal([]);
  });
});
