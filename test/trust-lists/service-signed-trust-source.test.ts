import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import request from 'supertest';
import { downloadFile, registerAccount, submitSign, waitForJob } from '../support/api.js';
import { startWebStack, type WebStack } from '../web/support.js';

/** A file the service signed (API, worker, its own TSA) names the service's CA as its trust source. */
describe('verify: trust source of a file the service signed', function () {
  let stack: WebStack | undefined;
  after(async () => {
    await stack?.close();
  });

  it('is service_ca, with the trust lists on, and its timestamp trusted', async () => {
    stack = await startWebStack();
    const app = stack.api.app;
    const account = await registerAccount(app, 'Daily Planet');
    const photo = readFileSync(path.join(import.meta.dirname, '../fixtures/photo.jpg'));
    const job = await waitForJob(app, account, await submitSign(app, account, photo, 'harbour.jpg'));
    expect(job.status, JSON.stringify(job)).to.equal('signed');
    const signed = await downloadFile(app, account, job.signed_file.download_url);
    const body = (await request(app).post('/v1/verify').attach('file', signed, 'harbour.jpg').expect(200)).body;
    expect(body.validation_state).to.equal('Trusted');
    expect(body.signer).to.deep.include({ trust_source: 'service_ca', trust_list_version: null });
    expect(body.revocation.status).to.equal('good');
    expect(body.timestamp).to.deep.include({ validated: true, trusted: true, trust_source: 'service_ca' });
  });
});
