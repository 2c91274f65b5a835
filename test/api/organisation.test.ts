import { expect } from 'chai';
import request from 'supertest';
import { addOrgUser, bearer, registerAccount, startTestApi, type Account, type TestApi } from '../support/api.js';

const PASSWORD = 'a long enough passphrase';

async function addUser(api: TestApi, admin: Account, role: string): Promise<{ userId: string; access: string; email: string }> {
  const user = await addOrgUser(api.app, admin, role);
  expect(user.created).to.include({ email: user.email, role, org_id: admin.orgId });
  expect(user.created).to.not.have.property('password_hash');
  return user;
}

describe('organisation users', () => {
  let api: TestApi;
  let a: Account;
  let b: Account;
  before(async () => {
    api = await startTestApi();
    a = await registerAccount(api.app, 'Org A');
    b = await registerAccount(api.app, 'Org B');
  });
  after(() => api.close());

  it('an admin adds, lists, re-roles and removes users of their own organisation', async () => {
    const signer = await addUser(api, a, 'signer');
    const list = await request(api.app).get('/org/users').set(bearer(a.access)).expect(200);
    expect(list.body.users.map((u: { email: string }) => u.email)).to.include.members([a.email, signer.email]);
    const patched = await request(api.app).patch(`/org/users/${signer.userId}`).set(bearer(a.access)).send({ role: 'viewer' }).expect(200);
    expect(patched.body.role).to.equal('viewer');
    // The role is read fresh on every request: the demoted user sees it at once.
    const me = await request(api.app).get('/auth/me').set(bearer(signer.access)).expect(200);
    expect(me.body.role).to.equal('viewer');
    await request(api.app).delete(`/org/users/${signer.userId}`).set(bearer(a.access)).expect(204);
    // A removed user's still-unexpired access token stops working.
    const gone = await request(api.app).get('/auth/me').set(bearer(signer.access));
    expect(gone.status).to.equal(401);
  });

  it('signers and viewers may not manage users (403)', async () => {
    for (const role of ['signer', 'viewer']) {
      const user = await addUser(api, a, role);
      const res = await request(api.app).get('/org/users').set(bearer(user.access));
      expect(res.status).to.equal(403);
      expect(res.body.error.code).to.equal('forbidden');
      expect((await request(api.app).post('/org/users').set(bearer(user.access)).send({ email: 'z@example.com', password: PASSWORD, role: 'admin' })).status).to.equal(403);
    }
  });

  it('the last admin can be neither demoted nor removed; with a second admin both work', async () => {
    const demote = await request(api.app).patch(`/org/users/${a.userId}`).set(bearer(a.access)).send({ role: 'signer' });
    expect(demote.status).to.equal(409);
    expect(demote.body.error.code).to.equal('last_admin');
    const remove = await request(api.app).delete(`/org/users/${a.userId}`).set(bearer(a.access));
    expect(remove.status).to.equal(409);

    const second = await addUser(api, a, 'admin');
    await request(api.app).patch(`/org/users/${a.userId}`).set(bearer(second.access)).send({ role: 'signer' }).expect(200);
    // Now `second` is the last admin.
    expect((await request(api.app).delete(`/org/users/${second.userId}`).set(bearer(second.access))).status).to.equal(409);
    await request(api.app).patch(`/org/users/${a.userId}`).set(bearer(second.access)).send({ role: 'admin' }).expect(200);
  });

  it('validates input: bad role, weak password, duplicate e-mail, malformed user_id', async () => {
    const badRole = await request(api.app).post('/org/users').set(bearer(a.access)).send({ email: 'r@example.com', password: PASSWORD, role: 'owner' });
    expect(badRole.status).to.equal(400);
    expect(badRole.body.error.message).to.contain('role');
    const weak = await request(api.app).post('/org/users').set(bearer(a.access)).send({ email: 'w@example.com', password: 'short', role: 'viewer' });
    expect(weak.status).to.equal(400);
    expect(weak.body.error.message).to.contain('password');
    const dup = await request(api.app).post('/org/users').set(bearer(a.access)).send({ email: b.email, password: PASSWORD, role: 'viewer' });
    expect(dup.status).to.equal(409);
    const malformed = await request(api.app).patch('/org/users/not-a-uuid').set(bearer(a.access)).send({ role: 'viewer' });
    expect(malformed.status).to.equal(400);
  });

  it("never reads or changes another organisation's users", async () => {
    const bSigner = await addUser(api, b, 'signer');
    const listA = await request(api.app).get('/org/users').set(bearer(a.access)).expect(200);
    const ids = listA.body.users.map((u: { user_id: string }) => u.user_id);
    expect(ids).to.not.include(b.userId).and.not.include(bSigner.userId);
    expect(listA.body.users.every((u: { org_id: string }) => u.org_id === a.orgId)).to.equal(true);
    expect((await request(api.app).patch(`/org/users/${bSigner.userId}`).set(bearer(a.access)).send({ role: 'admin' })).status).to.equal(404);
    expect((await request(api.app).delete(`/org/users/${bSigner.userId}`).set(bearer(a.access))).status).to.equal(404);
    const still = await request(api.app).get('/auth/me').set(bearer(bSigner.access)).expect(200);
    expect(still.body.role).to.equal('signer');
  });
});

describe('API keys', () => {
  let api: TestApi;
  let a: Account;
  let b: Account;
  before(async () => {
    api = await startTestApi();
    a = await registerAccount(api.app, 'Org A');
    b = await registerAccount(api.app, 'Org B');
  });
  after(() => api.close());

  it('creates a key shown once, stores only its hash, lists it without the secret', async () => {
    const res = await request(api.app).post('/org/api-keys').set(bearer(a.access)).send({ name: 'newsroom CMS' }).expect(201);
    expect(res.body).to.include.keys('key_id', 'name', 'key');
    expect(res.body.name).to.equal('newsroom CMS');
    expect(res.body.key).to.match(/^svc_sk_live_[A-Za-z0-9_-]{32,}$/);
    const rows = await api.db.knex('api_keys').where({ id: res.body.key_id });
    expect(JSON.stringify(rows)).to.not.contain(res.body.key);
    expect(JSON.stringify(rows)).to.not.contain(res.body.key.slice(20));

    const list = await request(api.app).get('/org/api-keys').set(bearer(a.access)).expect(200);
    const listed = list.body.api_keys.find((k: { key_id: string }) => k.key_id === res.body.key_id);
    expect(listed).to.have.keys('key_id', 'name', 'prefix', 'user_id', 'created_at', 'last_used_at', 'revoked_at');
    expect(res.body.key.startsWith(listed.prefix)).to.equal(true);
    expect(JSON.stringify(list.body)).to.not.contain(res.body.key);
  });

  it('400 without a name; 403 for non-admins and for API keys themselves', async () => {
    expect((await request(api.app).post('/org/api-keys').set(bearer(a.access)).send({})).status).to.equal(400);
    const signerEmail = `s-${Date.now()}@example.com`;
    await request(api.app).post('/org/users').set(bearer(a.access)).send({ email: signerEmail, password: PASSWORD, role: 'signer' }).expect(201);
    const signer = await request(api.app).post('/auth/login').send({ email: signerEmail, password: PASSWORD }).expect(200);
    expect((await request(api.app).post('/org/api-keys').set(bearer(signer.body.access_token)).send({ name: 'x' })).status).to.equal(403);
    const key = (await request(api.app).post('/org/api-keys').set(bearer(a.access)).send({ name: 'k' }).expect(201)).body.key;
    const withKey = await request(api.app).get('/org/api-keys').set('X-API-Key', key);
    expect(withKey.status).to.equal(403);
    expect((await request(api.app).get('/org/users').set('X-API-Key', key)).status).to.equal(403);
  });

  it('revocation: 204, the key stops working at once; malformed id 400; other organisation 404', async () => {
    const created = await request(api.app).post('/org/api-keys').set(bearer(a.access)).send({ name: 'to revoke' }).expect(201);
    // The key authenticates (it reaches the permission check, which refuses key management).
    expect((await request(api.app).get('/org/api-keys').set('X-API-Key', created.body.key)).status).to.equal(403);
    expect((await request(api.app).delete(`/org/api-keys/${created.body.key_id}`).set(bearer(b.access))).status).to.equal(404);
    expect((await request(api.app).delete('/org/api-keys/12345').set(bearer(a.access))).status).to.equal(400);
    await request(api.app).delete(`/org/api-keys/${created.body.key_id}`).set(bearer(a.access)).expect(204);
    const after = await request(api.app).get('/org/api-keys').set('X-API-Key', created.body.key);
    expect(after.status).to.equal(401);
    expect(after.body.error.code).to.equal('invalid_api_key');
    const list = await request(api.app).get('/org/api-keys').set(bearer(a.access)).expect(200);
    expect(list.body.api_keys.find((k: { key_id: string }) => k.key_id === created.body.key_id).revoked_at).to.be.a('string');
  });

  it("lists only the caller's organisation's keys", async () => {
    await request(api.app).post('/org/api-keys').set(bearer(b.access)).send({ name: 'b key' }).expect(201);
    const list = await request(api.app).get('/org/api-keys').set(bearer(a.access)).expect(200);
    expect(list.body.api_keys.map((k: { name: string }) => k.name)).to.not.include('b key');
  });

  it('an unknown or malformed key is 401', async () => {
    const res = await request(api.app).get('/org/api-keys').set('X-API-Key', 'svc_sk_live_' + 'A'.repeat(43));
    expect(res.status).to.equal(401);
    expect((await request(api.app).get('/org/api-keys').set('X-API-Key', 'nonsense')).status).to.equal(401);
  });
});
