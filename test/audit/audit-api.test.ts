/**
 * The audit log over HTTP: a new organisation's security events listed once each with their actor, never to another
 * organisation, with no secret in them; a signed checkpoint, and inclusion and consistency proofs that an RFC 9162
 * verifier accepts from the listed event alone.
 */
import { execFile } from 'node:child_process';
import { createHash, createPublicKey } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import request from 'supertest';
import { openCheckpoint } from '../../shared/audit-log/checkpoint-note.js';
import { createCheckpointer } from '../../shared/audit-log/checkpointer.js';
import { verifyConsistency, verifyInclusion } from '../../shared/audit-log/tree.js';
import { canonicalJson } from '../../shared/audit/canonical.js';
import { AUDIT_ACTIONS, type AuditJson } from '../../shared/audit/vocabulary.js';
import { initPki } from '../../shared/pki/init.js';
import { createKeyVault } from '../../shared/vault/index.js';
import { bearer, registerAccount, startTestApi, submitSign, type Account, type TestApi } from '../support/api.js';
import { noisePng } from '../support/noise-png.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface Listed {
  id: string;
  leaf_index: number;
  leaf_hash: string;
  action: string;
  actor: Record<string, string>;
  details: Record<string, unknown>;
  [k: string]: unknown;
}

describe('audit log API', function () {
  this.timeout(120_000);
  let api: TestApi;
  let a: Account;
  let b: Account;
  const secrets: string[] = [];

  const events = async (acc: Account, query = '') => {
    const res = await request(api.app).get(`/org/audit-events${query}`).set(bearer(acc.access)).expect(200);
    return res.body as { events: Listed[]; next_cursor: string | null };
  };
  const checkpoint = async () => {
    const key = await createKeyVault(api.config).ensureKey(api.config.audit.keyName);
    await createCheckpointer({ knex: api.db.knex, key, origin: api.config.audit.origin }).checkpoint();
    const res = await request(api.app).get('/v1/audit/checkpoint').expect(200);
    return { ...res.body, spki: key.publicKeySpki } as { origin: string; tree_size: number; root_hash: string; note: string; public_key: string; spki: Uint8Array };
  };

  before(async () => {
    api = await startTestApi({ WEBHOOK_ALLOW_PRIVATE: 'true' });
    await initPki({ knex: api.db.knex, vault: createKeyVault(api.config), config: api.config });
    a = await registerAccount(api.app, 'Audited');
    b = await registerAccount(api.app, 'Other');
    secrets.push(a.password, a.access, a.refresh, b.access);
    await request(api.app).post('/auth/login').send({ email: a.email, password: 'not the passphrase at all' }).expect(401);
    const key = await request(api.app).post('/org/api-keys').set(bearer(a.access)).send({ name: 'ci' }).expect(201);
    secrets.push(key.body.key);
    const hook = await request(api.app).post('/org/webhooks').set(bearer(a.access)).send({ url: 'https://127.0.0.1:9/in?token=sekrit-query', events: ['sign_job.signed'] }).expect(201);
    secrets.push(hook.body.secret, 'sekrit-query');
    const rotated = await request(api.app).post(`/org/webhooks/${hook.body.webhook_id}/rotate-secret`).set(bearer(a.access)).expect(200);
    secrets.push(rotated.body.secret);
    const user = await request(api.app).post('/org/users').set(bearer(a.access)).send({ email: 'temp@example.com', password: 'temporary passphrase here', role: 'signer' }).expect(201);
    secrets.push('temporary passphrase here');
    await request(api.app).patch(`/org/users/${user.body.user_id}`).set(bearer(a.access)).send({ role: 'viewer' }).expect(200);
    await request(api.app).delete(`/org/users/${user.body.user_id}`).set(bearer(a.access)).expect(204);
    await submitSign(api.app, a, noisePng(64, 64), 'a.png');
  });
  after(async () => api?.close());

  it("lists each of the organisation's actions once, newest first, with its actor", async () => {
    const { events: listed } = await events(a, '?limit=100');
    const count = (action: string) => listed.filter((e) => e.action === action).length;
    for (const action of ['account.registered', 'account.sign_in_failed', 'api_key.created', 'webhook.created', 'webhook.secret_rotated', 'user.role_changed', 'user.deleted', 'sign.requested']) {
      expect(count(action), action).to.equal(1);
    }
    expect(count('user.created')).to.equal(2); // the first admin, and the temporary user
    const indexes = listed.map((e) => e.leaf_index);
    expect(indexes).to.deep.equal([...indexes].sort((x, y) => y - x));
    expect(listed.find((e) => e.action === 'api_key.created')!.actor).to.deep.equal({ type: 'user', id: a.userId });
    const anonymous = listed.find((e) => e.action === 'account.sign_in_failed')!.actor;
    expect(anonymous.type).to.equal('anonymous');
    expect(anonymous.address).to.be.a('string').and.not.equal('');
    expect(listed.find((e) => e.action === 'user.deleted')!.details).to.include({ email: 'temp@example.com' });
  });

  it('never lists another organisation its events, and keeps secrets out of every event', async () => {
    const ofA = new Set((await events(a, '?limit=100')).events.map((e) => e.id));
    const ofB = (await events(b, '?limit=100')).events;
    expect(ofB.length).to.be.greaterThan(0);
    expect(ofB.filter((e) => ofA.has(e.id))).to.deep.equal([]);
    const all = JSON.stringify(await api.db.knex('audit_events').select('*'));
    for (const secret of secrets) expect(all.includes(secret), 'a secret in the audit log').to.equal(false);
    const someone = (await events(a)).events[0]!;
    await request(api.app).get(`/org/audit-events/${someone.id}/proof`).set(bearer(b.access)).expect(404);
  });

  it('pages with a cursor and filters by action, actor and time', async () => {
    const first = await events(a, '?limit=2');
    expect(first.events).to.have.length(2);
    const second = await events(a, `?limit=2&cursor=${first.next_cursor}`);
    expect(second.events[0]!.leaf_index).to.be.lessThan(first.events[1]!.leaf_index);
    expect((await events(a, '?action=user.deleted')).events.map((e) => e.action)).to.deep.equal(['user.deleted']);
    expect((await events(a, '?actor=anonymous')).events.map((e) => e.action).sort()).to.deep.equal(['account.registered', 'account.sign_in_failed', 'user.created']);
    expect((await events(a, `?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).events).to.deep.equal([]);
    const bad = await request(api.app).get('/org/audit-events?action=user.exploded').set(bearer(a.access)).expect(400);
    expect(bad.body.error.code).to.equal('invalid_parameter');
  });

  it('signs a checkpoint whose inclusion and consistency proofs check with RFC 9162 alone', async () => {
    const one = await checkpoint();
    const opened = openCheckpoint(one.note, one.spki, one.origin);
    expect(opened.treeSize).to.equal(one.tree_size);
    expect(opened.root.toString('base64')).to.equal(one.root_hash);
    expect(Buffer.from(one.public_key, 'base64').equals(Buffer.from(one.spki))).to.equal(true);

    const listed = (await events(a, '?action=user.deleted')).events[0]!;
    const { leaf_index: index, leaf_hash: stored, ...hashed } = listed;
    const leaf = createHash('sha256').update(Buffer.of(0)).update(canonicalJson(hashed as unknown as AuditJson)).digest();
    expect(leaf.toString('base64')).to.equal(stored);
    const proof = (await request(api.app).get(`/org/audit-events/${listed.id}/proof?tree_size=${one.tree_size}`).set(bearer(a.access)).expect(200)).body as { leaf_index: number; tree_size: number; audit_path: string[] };
    expect(proof.leaf_index).to.equal(index);
    const path = proof.audit_path.map((h) => Buffer.from(h, 'base64'));
    expect(verifyInclusion(leaf, index, one.tree_size, path, opened.root)).to.equal(true);

    await request(api.app).post('/auth/login').send({ email: b.email, password: 'wrong passphrase again' }).expect(401);
    const two = await checkpoint();
    expect(two.tree_size).to.be.greaterThan(one.tree_size);
    const consistency = (await request(api.app).get(`/v1/audit/consistency?first=${one.tree_size}&second=${two.tree_size}`).expect(200)).body as { proof: string[] };
    const root2 = openCheckpoint(two.note, two.spki, two.origin).root;
    expect(verifyConsistency(one.tree_size, two.tree_size, consistency.proof.map((h) => Buffer.from(h, 'base64')), opened.root, root2)).to.equal(true);

    const tooBig = await request(api.app).get(`/v1/audit/consistency?first=1&second=${two.tree_size + 1}`).expect(400);
    expect(tooBig.body.error.code).to.equal('tree_size_out_of_range');
    await request(api.app).get(`/org/audit-events/${listed.id}/proof?tree_size=${index}`).set(bearer(a.access)).expect(400);
  });

  it("the README's checker, with only Node and the public key, verifies a checkpoint, an inclusion and a consistency proof", async () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('### Checking it yourself'));
    const code = /```js\n([\s\S]*?)```/.exec(section)![1]!;
    expect(code.trimEnd().split('\n').length).to.be.below(60);
    const dir = mkdtempSync(path.join(tmpdir(), 'audit-checker-'));
    const server = api.app.listen(0, '127.0.0.1');
    try {
      await once(server, 'listening');
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const earlier = (await request(api.app).get('/v1/audit/checkpoint').expect(200)).body as { note: string; public_key: string };
      writeFileSync(path.join(dir, 'check-audit.mjs'), code);
      writeFileSync(path.join(dir, 'earlier.txt'), earlier.note);
      writeFileSync(path.join(dir, 'key.pem'), createPublicKey({ key: Buffer.from(earlier.public_key, 'base64'), format: 'der', type: 'spki' }).export({ format: 'pem', type: 'spki' }));
      await request(api.app).post('/auth/login').send({ email: a.email, password: 'yet another wrong one' }).expect(401);
      await checkpoint();
      const event = (await events(a, '?action=sign.requested')).events[0]!;
      const run = await new Promise<{ code: number; out: string }>((resolve) =>
        execFile(process.execPath, ['check-audit.mjs', base, 'key.pem', a.access, event.id, 'earlier.txt'], { cwd: dir, encoding: 'utf8' }, (err, stdout, stderr) => resolve({ code: err ? 1 : 0, out: stdout + stderr })),
      );
      expect(run.code, run.out).to.equal(0);
      expect(run.out).to.match(new RegExp(`event ${event.id}: leaf hash matches, included in checkpoint \\d+: true`));
      expect(run.out).to.match(/checkpoint \d+ -> \d+ consistent: true/);
    } finally {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the README lists the whole vocabulary', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    for (const action of AUDIT_ACTIONS) expect(readme, action).to.include(`| \`${action}\` |`);
  });

  it("puts every checkpoint's root in the pending anchor batch", async () => {
    const rows = await api.db.knex('audit_checkpoints as c').join('anchor_leaves as l', 'l.id', 'c.anchor_leaf_id').select('c.root_hash', 'l.sha256', 'l.signed_file_id');
    expect(rows.length).to.be.greaterThan(0);
    for (const r of rows) expect(Buffer.from(r.root_hash as string, 'base64').toString('hex')).to.equal(r.sha256);
  });
});
