import { expect } from 'chai';
import request from 'supertest';
import { initPki } from '../../shared/pki/init.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { bearer, registerAccount, startTestApi, type Account, type TestApi } from '../support/api.js';
import { readFileSync } from 'node:fs';

/** JSON text with the string `bad` (NUL or a lone surrogate) written as an escape, as a client would send it. */
const json = (body: unknown) => JSON.stringify(body).replaceAll('@NUL@', '\\u0000').replaceAll('@SUR@', '\\ud800');

describe('text input: NUL and unpaired surrogates are refused in every string field', () => {
  let api: TestApi;
  let admin: Account;
  let uploadId: string;
  before(async () => {
    api = await startTestApi();
    await initPki({ knex: api.db.knex, vault: createKeyVault(api.config), config: api.config });
    admin = await registerAccount(api.app, 'Text');
    const up = await request(api.app).post('/v1/media/upload').set(bearer(admin.access)).attach('file', readFileSync(new URL('../fixtures/small.jpg', import.meta.url)), 'small.jpg').expect(201);
    uploadId = up.body.upload_id;
  });
  after(() => api.close());

  const cases: [method: 'post' | 'patch' | 'put', path: string, field: string, body: (bad: string) => unknown, auth: boolean][] = [
    ['post', '/auth/login', 'email', (bad) => ({ email: `a${bad}@example.com`, password: 'whatever passphrase' }), false],
    ['post', '/auth/register', 'email', (bad) => ({ email: `b${bad}@example.com`, password: 'a long enough passphrase', org_name: 'X' }), false],
    ['post', '/auth/register', 'org_name', (bad) => ({ email: 'c@example.com', password: 'a long enough passphrase', org_name: `Org${bad}` }), false],
    ['patch', '/org', 'name', (bad) => ({ name: `Renamed${bad}` }), true],
    ['post', '/org/api-keys', 'name', (bad) => ({ name: `key${bad}` }), true],
    ['post', '/org/users', 'email', (bad) => ({ email: `d${bad}@example.com`, password: 'a long enough passphrase', role: 'viewer' }), true],
    ['post', '/v1/media/sign', 'manifest.title', (bad) => ({ upload_id: 'UPLOAD', manifest: { title: `T${bad}` } }), true],
    ['post', '/v1/media/sign', 'manifest.description', (bad) => ({ upload_id: 'UPLOAD', manifest: { title: 'T', description: `D${bad}` } }), true],
    ['post', '/v1/media/sign', 'manifest.copyrightNotice', (bad) => ({ upload_id: 'UPLOAD', manifest: { title: 'T', copyrightNotice: `© ${bad}` } }), true],
    ['post', '/v1/manifest-templates', 'manifest.creator', (bad) => ({ name: 'Tpl', manifest: { creator: `C${bad}` } }), true],
    ['post', '/v1/manifest-templates', 'name', (bad) => ({ name: `Tpl${bad}`, manifest: {} }), true],
    ['post', '/v1/matches/byBinding', 'value', (bad) => ({ alg: 'io.iscc.v0', value: `x${bad}` }), false],
  ];
  for (const [method, path, field, body, auth] of cases) {
    for (const [what, marker] of [['NUL', '@NUL@'], ['a lone surrogate', '@SUR@']] as const) {
      it(`${what} in ${field} of ${method.toUpperCase()} ${path} is 400 naming the field`, async () => {
        const text = json(body(marker)).replace('"UPLOAD"', JSON.stringify(uploadId));
        let req = request(api.app)[method](path).set('Content-Type', 'application/json');
        if (auth) req = req.set(bearer(admin.access));
        const res = await req.send(text);
        expect(res.status, JSON.stringify(res.body)).to.equal(400);
        expect(res.body.error.code).to.equal('invalid_text');
        expect(res.body.error.message).to.match(new RegExp(`^${field.replace('.', '\\.')} `));
      });
    }
  }

  it('in a query string or a path segment, also 400', async () => {
    const q = await request(api.app).get('/v1/media/jobs?cursor=%00').set(bearer(admin.access));
    expect(q.status).to.equal(400);
    expect(q.body.error.message).to.match(/^query\.cursor /);
    const p = await request(api.app).get('/v1/manifests/urn%3Ac2pa%3A%00');
    expect(p.status).to.equal(400);
    expect(p.body.error.code).to.equal('invalid_parameter');
  });

  it('surrogate pairs, right-to-left text, bidi controls and zero-width joiners are taken as sent', async () => {
    const title = 'صورة \u202Egnp.exe\u202C 👩\u200D💻 日本';
    const res = await request(api.app).post('/v1/media/sign').set(bearer(admin.access)).send({ upload_id: uploadId, manifest: { title, creator: 'Jane' } });
    expect(res.status, JSON.stringify(res.body)).to.equal(202);
    const job = await request(api.app).get(`/v1/media/jobs/${res.body.job_id}`).set(bearer(admin.access)).expect(200);
    expect(JSON.stringify(job.body)).to.include(JSON.stringify(title).slice(1, -1));
  });
});
