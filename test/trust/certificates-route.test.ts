/** GET /v1/certificates/signing, through the router and the app's error handler (mounted as api/app.ts would). */
import { expect } from 'chai';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express, { type Express } from 'express';
import request from 'supertest';
import type { AppContext } from '../../api/context.js';
import { buildOpenApiDocument } from '../../api/docs.js';
import { errorHandler } from '../../api/errors.js';
import { certificatesRouter } from '../../api/routes/certificates.js';
import { createLogger } from '../../shared/logger.js';
import { initPki, revokeCertificate, rotateLeaf } from '../../shared/pki/authority.js';
import { InProcessPkiEvents } from '../../shared/pki/pki-events.js';
import { openssl, startTrust, type TrustFixture } from './support.js';

describe('trust: GET /v1/certificates/signing', function () {
  let t: TrustFixture;
  let app: Express;
  const dir = mkdtempSync(path.join(tmpdir(), 'trust-route-'));

  before(async function () {
    t = await startTrust();
    // The router reads only config and knex from the context.
    const ctx = { config: t.config, knex: t.db.knex, logger: createLogger('silent', 'test') } as AppContext;
    app = express();
    app.use(certificatesRouter(ctx));
    app.use(errorHandler);
  });

  after(async function () {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 503 before the PKI is set up', async function () {
    const res = await request(app).get('/v1/certificates/signing').expect(503);
    expect(res.body).to.deep.equal({ error: { code: 'no_signing_certificate', message: 'the service has no valid signing certificate' } });
  });

  it('returns the current leaf, its chain and the root in PEM, without authentication', async function () {
    const chain = await initPki(t.deps);
    const res = await request(app).get('/v1/certificates/signing').expect(200).expect('Content-Type', /json/);
    expect(res.headers['cache-control']).to.equal('no-cache');
    const body = res.body;
    expect(body).to.include({
      serial: chain.leaf.serial,
      subject: chain.leaf.subject,
      issuer: chain.subCa.subject,
      not_before: chain.leaf.not_before.toISOString(),
      not_after: chain.leaf.not_after.toISOString(),
      fingerprint_sha256: chain.leaf.fingerprint_sha256,
    });
    expect(body.chain.map((c: { role: string }) => c.role)).to.deep.equal(['leaf', 'sub_ca']);
    expect(body.root.role).to.equal('root');
    expect(body.chain_pem).to.equal(body.chain[0].pem + body.chain[1].pem);
    const leaf = new X509Certificate(body.certificate_pem);
    expect(leaf.fingerprint256.replace(/:/g, '').toLowerCase()).to.equal(body.fingerprint_sha256);
    expect(leaf.serialNumber.toLowerCase()).to.equal(body.serial);
    for (const key of Object.keys(body)) expect(key).to.not.match(/key|private/i);

    writeFileSync(path.join(dir, 'chain.pem'), body.chain_pem);
    writeFileSync(path.join(dir, 'root.pem'), body.root.pem);
    writeFileSync(path.join(dir, 'leaf.pem'), body.certificate_pem);
    const r = await openssl(['verify', '-CAfile', 'root.pem', '-untrusted', 'chain.pem', 'leaf.pem'], dir);
    expect(r.stdout).to.include('leaf.pem: OK');

    const etag = res.headers.etag as string;
    await request(app).get('/v1/certificates/signing').set('If-None-Match', etag).expect(304);
  });

  it('follows rotation and revocation', async function () {
    const rotated = await rotateLeaf(t.deps);
    expect((await request(app).get('/v1/certificates/signing').expect(200)).body.serial).to.equal(rotated.serial);
    await revokeCertificate({ ...t.deps, events: new InProcessPkiEvents() }, rotated.serial, 'keyCompromise');
    expect((await request(app).get('/v1/certificates/signing').expect(200)).body.serial).to.not.equal(rotated.serial);
  });

  it('is described in the OpenAPI document', function () {
    const doc = buildOpenApiDocument(t.config) as { paths: Record<string, { get?: { security?: unknown } }>; components: { schemas: Record<string, unknown> } };
    const op = doc.paths['/v1/certificates/signing']?.get;
    expect(op).to.not.equal(undefined);
    expect(op!.security).to.equal(undefined);
    expect(doc.components.schemas.TrustCertificate).to.not.equal(undefined);
  });
});
