import { readFileSync } from 'node:fs';
import { Queue } from 'bullmq';
import { expect } from 'chai';
import request from 'supertest';
import { initPki } from '../../shared/pki/init.js';
import { SIGN_QUEUE_NAME } from '../../shared/queue/types.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { addOrgUser, bearer, registerAccount, startTestApi, type Account, type TestApi } from '../support/api.js';

const PNG = readFileSync(new URL('../fixtures/graphic.png', import.meta.url));
const BASE = '/v1/manifest-templates';

const planet = {
  creator: 'Planet Staff',
  description: 'Wire photo',
  publisher: { name: 'Daily Planet', url: 'https://planet.example/' },
  copyrightHolder: { name: 'Daily Planet Ltd' },
  copyrightNotice: '© 2025 Daily Planet Ltd',
  trainingMining: { 'cawg.ai_generative_training': { use: 'notAllowed' }, 'cawg.ai_training': { use: 'constrained', constraint_info: 'licensing@planet.example' } },
  thumbnail: true,
};

describe('manifest templates', () => {
  let api: TestApi;
  let a: Account;
  let b: Account;
  let aKey: Record<string, string>;
  let aSigner: Record<string, string>;
  let aViewer: Record<string, string>;
  let queue: Queue;

  const post = (auth: Record<string, string>, body: unknown) => request(api.app).post(BASE).set(auth).send(body as object);
  const get = (auth: Record<string, string>, path = '') => request(api.app).get(`${BASE}${path}`).set(auth);
  const put = (auth: Record<string, string>, id: string, body: unknown) => request(api.app).put(`${BASE}/${id}`).set(auth).send(body as object);
  const del = (auth: Record<string, string>, id: string) => request(api.app).delete(`${BASE}/${id}`).set(auth);
  const uploadAs = async (auth: Record<string, string>) =>
    (await request(api.app).post('/v1/media/upload').set(auth).attach('file', PNG, 'p.png').expect(201)).body.upload_id as string;
  const sign = (auth: Record<string, string>, body: object, key?: string) => {
    const r = request(api.app).post('/v1/media/sign').set(auth);
    if (key) r.set('Idempotency-Key', key);
    return r.send(body);
  };

  before(async () => {
    api = await startTestApi();
    await initPki({ knex: api.db.knex, vault: createKeyVault(api.config), config: api.config });
    a = await registerAccount(api.app, 'A');
    b = await registerAccount(api.app, 'B');
    aKey = { 'X-API-Key': (await request(api.app).post('/org/api-keys').set(bearer(a.access)).send({ name: 'cms' }).expect(201)).body.key };
    aSigner = bearer((await addOrgUser(api.app, a, 'signer')).access);
    aViewer = bearer((await addOrgUser(api.app, a, 'viewer')).access);
    queue = new Queue(SIGN_QUEUE_NAME, { connection: { url: api.config.redisUrl }, prefix: api.config.queuePrefix });
  });
  after(async () => {
    await queue?.obliterate({ force: true });
    await queue?.close();
    await api?.close();
  });

  describe('create, read, list, update, delete', () => {
    it('an admin creates a template at version 1; it is read back and listed in its organisation only', async () => {
      const res = await post(bearer(a.access), { name: ' Wire desk ', manifest: planet }).expect(201);
      expect(res.body).to.include({ name: 'Wire desk', version: 1 });
      expect(res.body.template_id).to.match(/^[0-9a-f-]{36}$/);
      expect(res.body.manifest).to.deep.equal(planet);
      expect(res.headers.location).to.equal(`${BASE}/${res.body.template_id}`);
      const read = await get(bearer(a.access), `/${res.body.template_id}`).expect(200);
      expect(read.body).to.deep.equal(res.body);

      const bOwn = await post(bearer(b.access), { name: 'B only', manifest: {} }).expect(201);
      const listA = await get(bearer(a.access)).expect(200);
      expect(listA.body.templates.map((t: { name: string }) => t.name)).to.deep.equal(['Wire desk']);
      expect(listA.body.next_cursor).to.equal(null);
      const listB = await get(bearer(b.access)).expect(200);
      expect(listB.body.templates.map((t: { template_id: string }) => t.template_id)).to.deep.equal([bOwn.body.template_id]);
    });

    it("another organisation's template id is 404 on read, update, delete and versions; so is an unknown id", async () => {
      const mine = (await post(bearer(a.access), { name: 'Private to A', manifest: { creator: 'A' } }).expect(201)).body;
      for (const res of [
        await get(bearer(b.access), `/${mine.template_id}`),
        await put(bearer(b.access), mine.template_id, { name: 'Taken over', manifest: {} }),
        await del(bearer(b.access), mine.template_id),
        await get(bearer(b.access), `/${mine.template_id}/versions/1`),
        await get(bearer(a.access), '/00000000-0000-4000-8000-000000000000'),
      ]) {
        expect(res.status).to.equal(404);
        expect(res.body.error.code).to.equal('not_found');
      }
      // Untouched by B's attempts.
      expect((await get(bearer(a.access), `/${mine.template_id}`).expect(200)).body).to.include({ name: 'Private to A', version: 1 });
      expect((await get(bearer(a.access), '/not-a-uuid')).status).to.equal(400);
    });

    it('names are unique within an organisation (409), not across organisations; a deleted template frees its name', async () => {
      await post(bearer(a.access), { name: 'Sports', manifest: {} }).expect(201);
      const dup = await post(bearer(a.access), { name: 'Sports', manifest: { creator: 'x' } });
      expect(dup.status).to.equal(409);
      expect(dup.body.error.code).to.equal('template_name_taken');
      await post(bearer(b.access), { name: 'Sports', manifest: {} }).expect(201);
      // Renaming onto a taken name is a 409 too, and changes nothing.
      const other = (await post(bearer(a.access), { name: 'Culture', manifest: {} }).expect(201)).body;
      expect((await put(bearer(a.access), other.template_id, { name: 'Sports', manifest: {} })).status).to.equal(409);
      expect((await get(bearer(a.access), `/${other.template_id}`).expect(200)).body).to.include({ name: 'Culture', version: 1 });

      await del(bearer(a.access), other.template_id).expect(204);
      expect((await del(bearer(a.access), other.template_id)).status).to.equal(404);
      expect((await get(bearer(a.access), `/${other.template_id}`)).status).to.equal(404);
      const list = await get(bearer(a.access), '?limit=100').expect(200);
      expect(list.body.templates.map((t: { name: string }) => t.name)).to.not.include('Culture');
      await post(bearer(a.access), { name: 'Culture', manifest: {} }).expect(201);
    });

    it('every update bumps the version; past versions stay readable, also after deletion', async () => {
      const created = (await post(bearer(a.access), { name: 'Versioned', manifest: { creator: 'First' } }).expect(201)).body;
      const v2 = await put(bearer(a.access), created.template_id, { name: 'Versioned', manifest: { creator: 'Second', copyrightNotice: '© Second' } }).expect(200);
      expect(v2.body).to.include({ version: 2, name: 'Versioned' });
      expect(v2.body.manifest).to.deep.equal({ creator: 'Second', copyrightNotice: '© Second' });
      // A full replacement: what is left out is gone. The same content again is still a new version.
      const v3 = await put(bearer(a.access), created.template_id, { name: 'Versioned (renamed)', manifest: { creator: 'Second' } }).expect(200);
      expect(v3.body).to.include({ version: 3, name: 'Versioned (renamed)' });
      expect(v3.body.manifest).to.deep.equal({ creator: 'Second' });
      expect(v3.body.created_at).to.equal(created.created_at);
      expect(Date.parse(v3.body.updated_at)).to.be.at.least(Date.parse(created.updated_at));

      const v1 = await get(bearer(a.access), `/${created.template_id}/versions/1`).expect(200);
      expect(v1.body).to.deep.include({ template_id: created.template_id, version: 1, name: 'Versioned', manifest: { creator: 'First' }, current_version: 3, deleted: false });
      expect((await get(bearer(a.access), `/${created.template_id}/versions/4`)).status).to.equal(404);
      expect((await get(bearer(a.access), `/${created.template_id}/versions/0`)).status).to.equal(400);
      expect((await get(bearer(a.access), `/${created.template_id}/versions/two`)).status).to.equal(400);

      await del(bearer(a.access), created.template_id).expect(204);
      const after = await get(aKey, `/${created.template_id}/versions/2`).expect(200);
      expect(after.body).to.deep.include({ version: 2, deleted: true, manifest: { creator: 'Second', copyrightNotice: '© Second' } });
      const rows = await api.db.knex('manifest_template_versions').where({ template_id: created.template_id }).orderBy('version');
      expect(rows.map((r) => r.version)).to.deep.equal([1, 2, 3]);
    });

    it('lists page by page like the other lists', async () => {
      const org = await registerAccount(api.app, 'Paged');
      for (let i = 0; i < 5; i += 1) await post(bearer(org.access), { name: `T${i}`, manifest: {} }).expect(201);
      const page1 = await get(bearer(org.access), '?limit=2').expect(200);
      expect(page1.body.templates).to.have.length(2);
      const page2 = await get(bearer(org.access), `?limit=2&cursor=${page1.body.next_cursor}`).expect(200);
      const page3 = await get(bearer(org.access), `?limit=2&cursor=${page2.body.next_cursor}`).expect(200);
      expect(page3.body.next_cursor).to.equal(null);
      const names = [...page1.body.templates, ...page2.body.templates, ...page3.body.templates].map((t: { name: string }) => t.name);
      expect(names).to.deep.equal(['T4', 'T3', 'T2', 'T1', 'T0']);
      expect((await get(bearer(org.access), '?limit=101')).status).to.equal(400);
    });
  });

  describe('who may do what', () => {
    let id: string;
    before(async () => {
      id = (await post(bearer(a.access), { name: 'Permissions', manifest: { creator: 'P' } }).expect(201)).body.template_id;
    });

    it('viewers, signers and API keys read; only admins create, update and delete (403)', async () => {
      for (const reader of [aViewer, aSigner, aKey]) {
        expect((await get(reader).expect(200)).body.templates.map((t: { template_id: string }) => t.template_id)).to.include(id);
        await get(reader, `/${id}`).expect(200);
        await get(reader, `/${id}/versions/1`).expect(200);
        for (const res of [await post(reader, { name: 'Nope', manifest: {} }), await put(reader, id, { name: 'Nope', manifest: {} }), await del(reader, id)]) {
          expect(res.status).to.equal(403);
          expect(res.body.error.code).to.equal('forbidden');
        }
      }
      const byKey = await post(aKey, { name: 'Nope', manifest: {} });
      expect(byKey.body.error.message).to.contain('API keys cannot');
      expect((await get(bearer(a.access), `/${id}`).expect(200)).body.version).to.equal(1);
      expect((await request(api.app).get(BASE)).status).to.equal(401);
      expect((await request(api.app).post(BASE).send({ name: 'x', manifest: {} })).status).to.equal(401);
    });
  });

  describe('validation errors name the field', () => {
    const cases: [string, unknown, string][] = [
      ['no name', { manifest: {} }, 'name is required'],
      ['an empty name', { name: '  ', manifest: {} }, 'name: must not be empty'],
      ['a long name', { name: 'n'.repeat(101), manifest: {} }, 'name: must be at most 100'],
      ['a numeric name', { name: 5, manifest: {} }, 'name: '],
      ['no manifest', { name: 'X' }, 'manifest is required'],
      ['a manifest that is a string', { name: 'X', manifest: 'creator' }, 'manifest.(root): must be an object'],
      ['a title (per request only)', { name: 'X', manifest: { title: 'T' } }, 'manifest.title: is given per sign request'],
      ['a dateCreated (per request only)', { name: 'X', manifest: { dateCreated: '2024-01-01' } }, 'manifest.dateCreated: is given per sign request'],
      ['a numeric creator', { name: 'X', manifest: { creator: 1 } }, 'manifest.creator: must be a string'],
      ['a bad digitalSourceType', { name: 'X', manifest: { digitalSourceType: 'camera' } }, 'manifest.digitalSourceType: must be an IPTC digital source type URL'],
      ['a publisher without a name', { name: 'X', manifest: { publisher: { url: 'https://p.example' } } }, 'manifest.publisher.name: is required'],
      ['a javascript: publisher url', { name: 'X', manifest: { publisher: { name: 'P', url: 'javascript:alert(1)' } } }, 'manifest.publisher.url: must be an http or https URL'],
      ['an unknown training use', { name: 'X', manifest: { trainingMining: { 'cawg.ai_painting': { use: 'allowed' } } } }, 'manifest.trainingMining.cawg.ai_painting: is not a supported use'],
      ['a bad training choice', { name: 'X', manifest: { trainingMining: { 'cawg.data_mining': { use: 'maybe' } } } }, 'manifest.trainingMining.cawg.data_mining.use: must be one of allowed, notAllowed, constrained'],
      ['a string thumbnail', { name: 'X', manifest: { thumbnail: 'true' } }, 'manifest.thumbnail: must be true or false'],
      ['an unknown manifest field', { name: 'X', manifest: { camera: 'X100' } }, 'manifest.camera: is not a supported field'],
      ['a manifest field at the top level', { name: 'X', creator: 'C', manifest: {} }, 'creator is not a template field; manifest defaults go inside manifest (manifest.creator)'],
    ];
    for (const [label, body, message] of cases) {
      it(`400 for ${label}, on create and on update`, async () => {
        const created = await post(bearer(a.access), body);
        expect(created.status, JSON.stringify(created.body)).to.equal(400);
        expect(created.body.error.code).to.equal('validation_error');
        expect(created.body.error.message).to.contain(message);
        const id = (await get(bearer(a.access), '?limit=1').expect(200)).body.templates[0].template_id as string;
        const updated = await put(bearer(a.access), id, body);
        expect(updated.status).to.equal(400);
        expect(updated.body.error.message).to.contain(message);
      });
    }
  });

  describe('signing with a template', () => {
    let template: { template_id: string };
    let bTemplate: { template_id: string };
    let uploadId: string;
    before(async () => {
      template = (await post(bearer(a.access), { name: 'Sign with me', manifest: planet }).expect(201)).body;
      bTemplate = (await post(bearer(b.access), { name: 'B sign', manifest: { creator: 'B staff' } }).expect(201)).body;
      uploadId = await uploadAs(aKey);
    });

    it('an API key signs with template_id and a title only: the job applies the merged manifest and names the template version', async () => {
      const res = await sign(aKey, { upload_id: uploadId, template_id: template.template_id, manifest: { title: 'Harbour' } }).expect(202);
      expect(res.body.template).to.deep.equal({ id: template.template_id, version: 1 });
      expect(res.body.manifest).to.deep.equal({ ...planet, title: 'Harbour' });
      const row = await api.db.knex('sign_jobs').where({ id: res.body.job_id }).first();
      expect(row).to.include({ template_id: template.template_id, template_version: 1 });
      expect(row.request_manifest).to.deep.equal({ title: 'Harbour' });
      expect((await queue.getJob(res.body.job_id))?.data).to.deep.equal({ jobId: res.body.job_id });
    });

    it("the request's fields replace the template's: creator, publisher, trainingMining and thumbnail", async () => {
      const override = {
        title: 'Override',
        creator: 'Jane Doe',
        publisher: { name: 'Jane Doe Photography' },
        trainingMining: { 'cawg.ai_inference': { use: 'allowed' } },
        thumbnail: false,
      };
      const res = await sign(bearer(a.access), { upload_id: uploadId, template_id: template.template_id, manifest: override }).expect(202);
      expect(res.body.manifest).to.deep.equal({ ...planet, ...override });
    });

    it('without a template creator is still required; with one that gives none it is too', async () => {
      const none = await sign(bearer(a.access), { upload_id: uploadId, manifest: { title: 'T' } });
      expect(none.status).to.equal(400);
      expect(none.body.error.message).to.equal('manifest.creator: is required');
      const bare = (await post(bearer(a.access), { name: 'No creator', manifest: { copyrightNotice: '© A' } }).expect(201)).body;
      const res = await sign(bearer(a.access), { upload_id: uploadId, template_id: bare.template_id, manifest: { title: 'T' } });
      expect(res.status).to.equal(400);
      expect(res.body.error.message).to.contain('manifest.creator: is required (the template gives no creator)');
      const noTitle = await sign(bearer(a.access), { upload_id: uploadId, template_id: template.template_id, manifest: {} });
      expect(noTitle.status).to.equal(400);
      expect(noTitle.body.error.message).to.equal('manifest.title: is required');
      const badField = await sign(bearer(a.access), { upload_id: uploadId, template_id: template.template_id, manifest: { title: 'T', publisher: { name: 'P', url: 'mailto:x@y' } } });
      expect(badField.status).to.equal(400);
      expect(badField.body.error.message).to.contain('manifest.publisher.url');
    });

    it("404 for another organisation's template and for a deleted one; 400 for a malformed template_id; nothing queued", async () => {
      const jobs = async () => Number((await api.db.knex('sign_jobs').count('* as n'))[0]!.n);
      const before = await jobs();
      const foreign = await sign(bearer(a.access), { upload_id: uploadId, template_id: bTemplate.template_id, manifest: { title: 'T' } });
      expect(foreign.status).to.equal(404);
      expect(foreign.body.error.message).to.equal('manifest template not found');
      const gone = (await post(bearer(a.access), { name: 'Short-lived', manifest: { creator: 'x' } }).expect(201)).body;
      await del(bearer(a.access), gone.template_id).expect(204);
      expect((await sign(bearer(a.access), { upload_id: uploadId, template_id: gone.template_id, manifest: { title: 'T' } })).status).to.equal(404);
      const malformed = await sign(bearer(a.access), { upload_id: uploadId, template_id: 'wire-desk', manifest: { title: 'T', creator: 'C' } });
      expect(malformed.status).to.equal(400);
      expect(malformed.body.error.message).to.contain('template_id');
      expect(await jobs()).to.equal(before);
      // And B cannot use A's template with B's own upload either.
      const bUpload = await uploadAs(bearer(b.access));
      expect((await sign(bearer(b.access), { upload_id: bUpload, template_id: template.template_id, manifest: { title: 'T' } })).status).to.equal(404);
      await sign(bearer(b.access), { upload_id: bUpload, template_id: bTemplate.template_id, manifest: { title: 'T' } }).expect(202);
    });

    it('a later edit (or deletion) of the template changes neither the job view nor the manifest the job applies', async () => {
      const t = (await post(bearer(a.access), { name: 'Edited later', manifest: { creator: 'Before', copyrightNotice: '© Before' } }).expect(201)).body;
      const job = (await sign(aSigner, { upload_id: uploadId, template_id: t.template_id, manifest: { title: 'Kept' } }).expect(202)).body;
      expect(job.manifest).to.deep.equal({ title: 'Kept', creator: 'Before', copyrightNotice: '© Before' });
      await put(bearer(a.access), t.template_id, { name: 'Edited later', manifest: { creator: 'After' } }).expect(200);

      const view = await request(api.app).get(`/v1/media/jobs/${job.job_id}`).set(aViewer).expect(200);
      expect(view.body.template).to.deep.equal({ id: t.template_id, version: 1 });
      expect(view.body.manifest).to.deep.equal(job.manifest);
      const later = (await sign(aSigner, { upload_id: uploadId, template_id: t.template_id, manifest: { title: 'New' } }).expect(202)).body;
      expect(later.template).to.deep.equal({ id: t.template_id, version: 2 });
      expect(later.manifest).to.deep.equal({ title: 'New', creator: 'After' });

      await del(bearer(a.access), t.template_id).expect(204);
      const listed = await request(api.app).get('/v1/media/jobs?limit=100').set(bearer(a.access)).expect(200);
      const fromList = listed.body.jobs.find((j: { job_id: string }) => j.job_id === job.job_id);
      expect(fromList.template).to.deep.equal({ id: t.template_id, version: 1 });
      expect(fromList.manifest).to.deep.equal(job.manifest);
      // The job's template reference still resolves.
      await get(bearer(a.access), `/${t.template_id}/versions/1`).expect(200);
      // Jobs without a template say so.
      const plain = (await sign(bearer(a.access), { upload_id: uploadId, manifest: { title: 'T', creator: 'C' } }).expect(202)).body;
      expect(plain.template).to.equal(null);
    });

    it('an Idempotency-Key replay compares template_id too, and survives a template edit', async () => {
      const t = (await post(bearer(a.access), { name: 'Idempotent', manifest: { creator: 'One' } }).expect(201)).body;
      const other = (await post(bearer(a.access), { name: 'Idempotent 2', manifest: { creator: 'Two' } }).expect(201)).body;
      const body = { upload_id: uploadId, template_id: t.template_id, manifest: { title: 'Same' } };
      const first = (await sign(aKey, body, 'tmpl-1').expect(202)).body;
      expect((await sign(aKey, body, 'tmpl-1').expect(202)).body.job_id).to.equal(first.job_id);
      for (const different of [
        { ...body, template_id: other.template_id },
        { upload_id: uploadId, manifest: { title: 'Same', creator: 'One' } }, // the same merged manifest, but no template
        { ...body, manifest: { title: 'Same', creator: 'One' } }, // the template's creator, given in the request
      ]) {
        const res = await sign(aKey, different, 'tmpl-1');
        expect(res.status, JSON.stringify(different)).to.equal(409);
        expect(res.body.error.code).to.equal('idempotency_conflict');
      }
      // The template changes; the same request under the same key is still the same job, as it was signed.
      await put(bearer(a.access), t.template_id, { name: 'Idempotent', manifest: { creator: 'Changed' } }).expect(200);
      const replay = (await sign(aKey, body, 'tmpl-1').expect(202)).body;
      expect(replay.job_id).to.equal(first.job_id);
      expect(replay.template).to.deep.equal({ id: t.template_id, version: 1 });
      expect(replay.manifest.creator).to.equal('One');
      // Even once the template is deleted.
      await del(bearer(a.access), t.template_id).expect(204);
      expect((await sign(aKey, body, 'tmpl-1').expect(202)).body.job_id).to.equal(first.job_id);
      // A request without a template replays too (request_manifest compared, as before templates).
      const plain = { upload_id: uploadId, manifest: { title: 'Plain', creator: 'Me' } };
      const p1 = (await sign(aKey, plain, 'plain-1').expect(202)).body;
      expect((await sign(aKey, { ...plain, template_id: null }, 'plain-1').expect(202)).body.job_id).to.equal(p1.job_id);
    });

    it('a viewer may not sign with a template (403), even though viewers read templates', async () => {
      expect((await sign(aViewer, { upload_id: uploadId, template_id: template.template_id, manifest: { title: 'T' } })).status).to.equal(403);
    });
  });
});
