import { expect } from 'chai';
import request from 'supertest';
import { bearer, registerAccount, startTestApi, type Account, type TestApi } from '../support/api.js';

describe('sessions: sign-out and per-account sign-in throttling', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi({ TRUST_PROXY_HOPS: '1', LOGIN_FAILURE_LIMIT: '10' });
  });
  after(() => api.close());

  const login = (email: string, password: string, from: string) =>
    request(api.app).post('/auth/login').set('X-Forwarded-For', from).send({ email, password });

  describe('POST /auth/logout', () => {
    let acc: Account;
    beforeEach(async () => {
      acc = await registerAccount(api.app, 'Sessions');
    });

    it('refuses the session’s access token at once, and its refresh token; another session goes on', async () => {
      const other = (await login(acc.email, acc.password, '10.0.0.1').expect(200)).body as { access_token: string };
      await request(api.app).get('/auth/me').set(bearer(acc.access)).expect(200);
      await request(api.app).post('/auth/logout').set(bearer(acc.access)).expect(204);
      const after = await request(api.app).get('/auth/me').set(bearer(acc.access)).expect(401);
      expect(after.body.error.code).to.equal('invalid_token');
      await request(api.app).post('/auth/refresh').send({ refresh_token: acc.refresh }).expect(401);
      await request(api.app).get('/auth/me').set(bearer(other.access_token)).expect(200);
    });

    it('a new access token from a refresh of the same session is refused too', async () => {
      const pair = (await request(api.app).post('/auth/refresh').send({ refresh_token: acc.refresh }).expect(200)).body as { access_token: string; refresh_token: string };
      await request(api.app).post('/auth/logout').set(bearer(acc.access)).expect(204);
      await request(api.app).get('/auth/me').set(bearer(pair.access_token)).expect(401);
      await request(api.app).post('/auth/refresh').send({ refresh_token: pair.refresh_token }).expect(401);
    });

    it('all: true signs out every session of the user, and only theirs', async () => {
      const second = (await login(acc.email, acc.password, '10.0.0.2').expect(200)).body as { access_token: string };
      const stranger = await registerAccount(api.app, 'Stranger');
      await request(api.app).post('/auth/logout').set(bearer(second.access_token)).send({ all: true }).expect(204);
      await request(api.app).get('/auth/me').set(bearer(acc.access)).expect(401);
      await request(api.app).get('/auth/me').set(bearer(second.access_token)).expect(401);
      await request(api.app).get('/auth/me').set(bearer(stranger.access)).expect(200);
    });

    it('a replayed refresh token signs out the access tokens of its session as well', async () => {
      await request(api.app).post('/auth/refresh').send({ refresh_token: acc.refresh }).expect(200);
      await request(api.app).post('/auth/refresh').send({ refresh_token: acc.refresh }).expect(401);
      await request(api.app).get('/auth/me').set(bearer(acc.access)).expect(401);
    });

    it('needs a signed-in user', async () => {
      const res = await request(api.app).post('/auth/logout').expect(401);
      expect(res.body.error.code).to.equal('unauthenticated');
    });
  });

  describe('failed sign-ins per account', () => {
    it('30 wrong passwords for one account from 30 addresses: 401 ten times, then 429 with Retry-After, the right password included', async () => {
      const acc = await registerAccount(api.app, 'Target');
      const statuses: number[] = [];
      let retryAfter: string | undefined;
      for (let i = 0; i < 30; i += 1) {
        const res = await login(acc.email, `wrong guess number ${i}`, `198.51.100.${i + 1}`);
        statuses.push(res.status);
        if (res.status === 429) {
          expect(res.body.error.code).to.equal('too_many_attempts');
          retryAfter = res.headers['retry-after'];
        }
      }
      expect(statuses.slice(0, 10)).to.deep.equal(Array(10).fill(401));
      expect(statuses.slice(10)).to.deep.equal(Array(20).fill(429));
      expect(Number(retryAfter)).to.be.within(1, 900);
      // The right password is refused too while the account is throttled (else guessing would go on at full speed).
      await login(acc.email, acc.password, '203.0.113.9').expect(429);
      // Another account is not affected.
      const bystander = await registerAccount(api.app, 'Bystander');
      await login(bystander.email, bystander.password, '198.51.100.1').expect(200);
    });

    it('an address without an account is answered exactly the same way', async () => {
      const ghost = `nobody-${Date.now()}@example.com`;
      const statuses: number[] = [];
      for (let i = 0; i < 12; i += 1) statuses.push((await login(ghost, 'some password guess', `192.0.2.${i + 1}`)).status);
      expect(statuses).to.deep.equal([...Array(10).fill(401), 429, 429]);
    });

    it('a successful sign-in starts the count again; the count is by address, not letter case', async () => {
      const acc = await registerAccount(api.app, 'Forgetful');
      for (let i = 0; i < 9; i += 1) await login(acc.email.toUpperCase(), 'not my password', '10.1.0.1').expect(401);
      await login(acc.email, acc.password, '10.1.0.1').expect(200);
      for (let i = 0; i < 10; i += 1) await login(acc.email, 'not my password', '10.1.0.1').expect(401);
      await login(acc.email, 'not my password', '10.1.0.1').expect(429);
    });

    it('parallel guesses cannot slip in under the limit', async () => {
      const acc = await registerAccount(api.app, 'Parallel');
      const results = await Promise.all(Array.from({ length: 25 }, (_, i) => login(acc.email, `guess ${i}`, `172.16.0.${i + 1}`)));
      expect(results.filter((r) => r.status === 401)).to.have.length(10);
      expect(results.filter((r) => r.status === 429)).to.have.length(15);
    });
  });
});
