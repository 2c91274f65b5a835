/**
 * A signed file's download says where its manifest is over HTTP (C2PA 2.2 §15.5.3.2): `Link: <manifest URL>;
 * rel="c2pa-manifest"`, the URL being the public repository's GET /v1/manifests/{id}, which serves that file's
 * manifest store; so does the permalink of a public verification of its bytes (GET /v1/verify/{sha256}); a file whose manifest is not discoverable gets no Link, so nothing points at a 404.
 */
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import request from 'supertest';
import { readAsset } from '../../shared/c2pa/read-asset.js';
import { processSignJob } from '../../workers/sign-job.js';
import type { SignJobDeps } from '../../workers/sign-job/deps.js';
import { tinyDocx } from '../media/document-samples.js';
import { withSigningCounter } from '../media/signing-desk.js';
import { bearer, waitForJob, type Account, type TestApi } from '../support/api.js';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

describe('api: a signed file download and its public permalink carry a c2pa-manifest Link to the manifest repository', function () {
  this.timeout(60_000);
  let api: TestApi;
  let acc: Account;
  let rootPem: string;
  let deps: SignJobDeps;
  withSigningCounter('Link Desk', (counter) => ({ api, acc, rootPem, deps } = counter));

  async function signedDownload(discoverable: boolean) {
    const up = await request(api.app).post('/v1/media/upload').set(bearer(acc.access)).attach('file', tinyDocx(discoverable ? 'Public' : 'Private'), 'minutes.docx').expect(201);
    const sign = await request(api.app).post('/v1/media/sign').set(bearer(acc.access)).send({ upload_id: up.body.upload_id, discoverable, manifest: { title: 'Minutes', creator: 'Desk' } }).expect(202);
    await processSignJob(deps, sign.body.job_id, { number: 1, final: true });
    const job = await waitForJob(api.app, acc, sign.body.job_id);
    expect(job.status, JSON.stringify(job.error)).to.equal('signed');
    return request(api.app).get(new URL(job.signed_file.download_url).pathname).set(bearer(acc.access)).buffer(true).parse((r, cb) => {
      const parts: Buffer[] = [];
      r.on('data', (d: Buffer) => parts.push(d));
      r.on('end', () => cb(null, Buffer.concat(parts)));
    }).expect(200);
  }

  it('a discoverable file: the Link names GET /v1/manifests/{its active manifest}, which serves its manifest store', async () => {
    const res = await signedDownload(true);
    const signed = res.body as Buffer;
    const report = await readAsset(signed, DOCX, { trustAnchorsPem: rootPem });
    expect(report.validation_state).to.equal('Trusted');
    const manifestUrl = `${api.config.baseUrl}/v1/manifests/${encodeURIComponent(report.active_manifest!)}`;
    expect(res.headers.link).to.equal(`<${manifestUrl}>; rel="c2pa-manifest"`);

    const url = new URL(/^<([^>]+)>/.exec(res.headers.link as string)![1]!);
    const store = await request(api.app).get(url.pathname).buffer(true).parse((r, cb) => {
      const parts: Buffer[] = [];
      r.on('data', (d: Buffer) => parts.push(d));
      r.on('end', () => cb(null, Buffer.concat(parts)));
    }).expect(200);
    expect(store.headers['content-type']).to.equal('application/c2pa');
    // The store served is the one the file carries: its manifest entry, byte for byte.
    expect(signed.includes(store.body as Buffer)).to.equal(true);

    // The permalink of a public verification of the same bytes names the same manifest.
    await request(api.app).post('/v1/verify').attach('file', signed, 'minutes.docx').expect(200);
    const sha256 = createHash('sha256').update(signed).digest('hex');
    const permalink = await request(api.app).get(`/v1/verify/${sha256}`).expect(200);
    expect(permalink.headers.link).to.equal(res.headers.link);
  });

  it('a file whose manifest is not discoverable: no Link (the repository would answer 404)', async () => {
    const res = await signedDownload(false);
    expect(res.headers.link).to.equal(undefined);
    await request(api.app).post('/v1/verify').attach('file', res.body as Buffer, 'minutes.docx').expect(200);
    const permalink = await request(api.app).get(`/v1/verify/${createHash('sha256').update(res.body as Buffer).digest('hex')}`);
    expect(permalink.headers.link).to.equal(undefined);
    const report = await readAsset(res.body as Buffer, DOCX, { trustAnchorsPem: rootPem });
    await request(api.app).get(`/v1/manifests/${encodeURIComponent(report.active_manifest!)}`).expect(404);
  });
});
