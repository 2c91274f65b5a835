/**
 * Passwords are hashed and compared in worker threads (api/auth/password-pool.ts), never on the API's event loop:
 * the hashes bcrypt made before stay valid, the cost is kept, sign-ins of known and unknown accounts alike go through
 * the threads, and past PASSWORD_CHECKS_MAX checks in flight a sign-in is 503 auth_busy with Retry-After.
 */
import { createHash } from 'node:crypto';
import { threadId } from 'node:worker_threads';
import bcrypt from 'bcryptjs';
import { expect } from 'chai';
import request from 'supertest';
import { PasswordPool, type PasswordCheck } from '../../api/auth/password-pool.js';
import { ServiceError } from '../../shared/errors.js';
import { scrape } from '../metrics/support.js';
import { registerAccount, startTestApi, type TestApi } from '../support/api.js';
import { rejection } from '../support/rejection.js';

describe('password threads', function () {
  this.timeout(60_000);
  const pools: PasswordPool[] = [];
  const pool = (options: ConstructorParameters<typeof PasswordPool>[0]) => {
    const made = new PasswordPool(options);
    pools.push(made);
    return made;
  };
  after(async () => {
    await Promise.all(pools.map((p) => p.close()));
  });

  it('hashes and compares in threads other than the caller’s', async () => {
    const checks: PasswordCheck[] = [];
    const passwords = pool({ threads: 2, maxChecks: 8, onCheck: (c) => checks.push(c) });
    const hash = await passwords.hash('correct horse battery', 4);
    expect(await passwords.compare('correct horse battery', hash)).to.equal(true);
    expect(await passwords.compare('wrong horse battery', hash)).to.equal(false);
    expect(checks.map((c) => c.op)).to.deep.equal(['hash', 'compare', 'compare']);
    for (const c of checks) expect(c.threadId, 'a worker thread').to.not.equal(threadId);
  });

  it('keeps the hashes bcrypt made before valid, and the cost it is given (12 as in production)', async () => {
    const checks: PasswordCheck[] = [];
    const passwords = pool({ threads: 1, maxChecks: 4, onCheck: (c) => checks.push(c) });
    const before = bcrypt.hashSync('a long enough passphrase', 5);
    expect(await passwords.compare('a long enough passphrase', before)).to.equal(true);
    expect(await passwords.compare('a long enough passphrase', before.replace(/^\$2b\$/, '$2a$'))).to.equal(true);
    const made = await passwords.hash('a long enough passphrase', 12);
    expect(made).to.match(/^\$2b\$12\$/);
    expect(bcrypt.compareSync('a long enough passphrase', made)).to.equal(true);
    expect(checks.every((c) => c.threadId !== threadId)).to.equal(true);
  });

  it('refuses a check past maxChecks (running and waiting) with auth_busy and Retry-After; closing refuses what was left', async () => {
    const passwords = pool({ threads: 1, maxChecks: 2 });
    // Cost 20: minutes of work each, ended by close().
    const held = [passwords.hash('held one', 20), passwords.hash('held two', 20)].map((h) => h.then(() => undefined, (err: Error) => err));
    const busy = await rejection(passwords.compare('anything', '$2b$04$abcdefghijklmnopqrstuu5wZ1uQvTqAnQjs0e9gGJmOd6mKtyDmK'));
    expect(busy).to.be.instanceOf(ServiceError).and.include({ kind: 'unavailable', code: 'auth_busy', retryAfterSeconds: 2 });
    expect(() => passwords.assertRoom()).to.throw(ServiceError, /PASSWORD_CHECKS_MAX/);
    await passwords.close();
    for (const h of held) expect((await h)?.message).to.match(/closed/);
  });
});

/** The count of mss_password_check_seconds for `op`: every check a thread answered. */
const checksDone = async (op: 'hash' | 'compare') => (await scrape()).value('mss_password_check_seconds_count', { op });

describe('sign-ins through the password threads', function () {
  this.timeout(120_000);
  let api: TestApi;
  before(async () => {
    api = await startTestApi({ PASSWORD_THREADS: '2', PASSWORD_CHECKS_MAX: '2', TRUST_PROXY_HOPS: '1' });
  });
  after(() => api?.close());
  const login = (email: string, password: string) => request(api.app).post('/auth/login').set('X-Forwarded-For', '203.0.113.7').send({ email, password });

  it('registration hashes there; a right password signs in, a wrong one and an unknown account are the same 401, each compared there', async () => {
    const hashed = await checksDone('hash');
    const acc = await registerAccount(api.app, 'Threads');
    expect(await checksDone('hash')).to.be.at.least(hashed + 1);
    const compared = await checksDone('compare');
    await login(acc.email, acc.password).expect(200);
    const wrong = await login(acc.email, 'not the password at all').expect(401);
    const unknown = await login('nobody@example.com', 'not the password at all').expect(401);
    expect(wrong.body).to.deep.equal(unknown.body);
    expect(unknown.body.error.code).to.equal('invalid_credentials');
    expect(await checksDone('compare')).to.equal(compared + 3);
  });

  it('beyond PASSWORD_CHECKS_MAX: 503 auth_busy with Retry-After, not counted against the account; signs in once there is room', async () => {
    const acc = await registerAccount(api.app, 'Busy');
    // Two checks at a cost that takes seconds fill both places.
    const held = [api.passwords.hash('held one', 14), api.passwords.hash('held two', 14)];
    const busy = await login(acc.email, acc.password).expect(503);
    expect(busy.body.error.code).to.equal('auth_busy');
    expect(busy.headers['retry-after']).to.equal('2');
    const emailKey = createHash('sha256').update(acc.email).digest('hex');
    expect(await api.db.knex('login_failures').where({ email_key: emailKey }).first(), 'no attempt counted').to.equal(undefined);
    await Promise.all(held);
    await login(acc.email, acc.password).expect(200);
  });
});
