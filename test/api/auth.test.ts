import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { bearer, registerAccount, startTestApi, type TestApi } from '../support/api.js';

function expectError(res: request.Response, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(res.body).to.have.keys('error');
  expect(res.body.error.code).to.equal(code);
  expect(res.body.error.message).to.be.a('string').and.not.match(/\bat \S+ \(/); // no stack trace
}

describe('accounts and tokens', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi();
  });
  after(() => api.close());

  describe('POST /auth/register', () => {
    it('creates the organisation and its admin and returns a bearer pair', async () => {
      const res = await request(api.app)
        .post('/auth/register')
        .send({ email: 'Founder@Example.com', password: 'a long enough passphrase', org_name: 'Daily Planet' })
        .expect(201);
      expect(res.body.token_type).to.equal('bearer');
      expect(res.body.access_token).to.be.a('string');
      expect(res.body.refresh_token).to.be.a('string');
      const me = await request(api.app).get('/auth/me').set(bearer(res.body.access_token)).expect(200);
      expect(me.body).to.have.keys('user_id', 'email', 'name', 'org_id', 'role');
      expect(me.body.email).to.equal('founder@example.com');
      expect(me.body.role).to.equal('admin');
      const org = await api.db.knex('organisations').where({ id: me.body.org_id }).first();
      expect(org.name).to.equal('Daily Planet');
      const user = await api.db.knex('users').where({ id: me.body.user_id }).first();
      expect(user.password_hash).to.match(/^\$2[aby]\$/);
    });

    it('claims are sub, org, role, typ, jti, iat, exp with HS256 and 15 minute / 30 day lifetimes', async () => {
      const res = await request(api.app)
        .post('/auth/register')
        .send({ email: 'claims@example.com', password: 'a long enough passphrase', org_name: 'C' })
        .expect(201);
      const access = jwt.decode(res.body.access_token, { complete: true })!;
      const refresh = jwt.decode(res.body.refresh_token, { complete: true })!;
      expect(access.header.alg).to.equal('HS256');
      const a = access.payload as jwt.JwtPayload;
      const r = refresh.payload as jwt.JwtPayload;
      expect(a).to.include.keys('sub', 'org', 'role', 'typ', 'jti', 'iat', 'exp');
      expect(a.typ).to.equal('access');
      expect(r.typ).to.equal('refresh');
      expect(a.exp! - a.iat!).to.equal(15 * 60);
      expect(r.exp! - r.iat!).to.equal(30 * 24 * 3600);
    });

    it('refuses a duplicate e-mail (any case) with 409', async () => {
      await registerAccount(api.app).then(async (acc) => {
        const res = await request(api.app)
          .post('/auth/register')
          .send({ email: acc.email.toUpperCase(), password: 'another long passphrase', org_name: 'X' });
        expectError(res, 409, 'email_taken');
      });
    });

    for (const [field, body] of [
      ['email', { password: 'a long enough passphrase', org_name: 'O' }],
      ['email', { email: 'not-an-address', password: 'a long enough passphrase', org_name: 'O' }],
      ['password', { email: 'p@example.com', org_name: 'O' }],
      ['password', { email: 'p@example.com', password: 'short', org_name: 'O' }],
      ['org_name', { email: 'p@example.com', password: 'a long enough passphrase' }],
      ['org_name', { email: 'p@example.com', password: 'a long enough passphrase', org_name: '   ' }],
    ] as const) {
      it(`400 naming ${field} for ${JSON.stringify(body)}`, async () => {
        const res = await request(api.app).post('/auth/register').send(body);
        expect(res.status).to.equal(400);
        expect(res.body.error.message).to.contain(field);
      });
    }

    it('400 for malformed JSON', async () => {
      const res = await request(api.app).post('/auth/register').set('Content-Type', 'application/json').send('{"email":');
      expectError(res, 400, 'malformed_json');
    });
  });

  describe('POST /auth/login', () => {
    it('returns a token pair for the right password', async () => {
      const acc = await registerAccount(api.app);
      const res = await request(api.app).post('/auth/login').send({ email: acc.email, password: acc.password }).expect(200);
      expect(res.body).to.include.keys('access_token', 'refresh_token', 'token_type');
      await request(api.app).get('/auth/me').set(bearer(res.body.access_token)).expect(200);
    });

    it('answers unknown e-mail and wrong password with the same 401', async () => {
      const acc = await registerAccount(api.app);
      const wrong = await request(api.app).post('/auth/login').send({ email: acc.email, password: 'not the password at all' });
      const unknown = await request(api.app).post('/auth/login').send({ email: 'nobody@example.com', password: 'not the password at all' });
      expectError(wrong, 401, 'invalid_credentials');
      expectError(unknown, 401, 'invalid_credentials');
      expect(wrong.body).to.deep.equal(unknown.body);
    });
  });

  describe('POST /auth/refresh', () => {
    it('rotates the pair; the old refresh token is single use and its reuse revokes the family', async () => {
      const acc = await registerAccount(api.app);
      const first = await request(api.app).post('/auth/refresh').send({ refresh_token: acc.refresh }).expect(200);
      expect(first.body).to.include.keys('access_token', 'refresh_token', 'token_type');
      expect(first.body.refresh_token).to.not.equal(acc.refresh);
      await request(api.app).get('/auth/me').set(bearer(first.body.access_token)).expect(200);

      const reuse = await request(api.app).post('/auth/refresh').send({ refresh_token: acc.refresh });
      expectError(reuse, 401, 'invalid_token');
      // The family is revoked: the newer refresh token no longer works either.
      const after = await request(api.app).post('/auth/refresh').send({ refresh_token: first.body.refresh_token });
      expectError(after, 401, 'invalid_token');
    });

    it('does not accept an access token as a refresh token, nor a refresh token as a bearer', async () => {
      const acc = await registerAccount(api.app);
      expectError(await request(api.app).post('/auth/refresh').send({ refresh_token: acc.access }), 401, 'invalid_token');
      expectError(await request(api.app).get('/auth/me').set(bearer(acc.refresh)), 401, 'invalid_token');
    });

    it('400 without refresh_token', async () => {
      const res = await request(api.app).post('/auth/refresh').send({});
      expect(res.status).to.equal(400);
      expect(res.body.error.message).to.contain('refresh_token');
    });
  });

  describe('bearer tokens', () => {
    it('401 token_expired for an expired access token', async () => {
      const acc = await registerAccount(api.app);
      const expired = jwt.sign({ org: acc.orgId, role: 'admin', typ: 'access' }, api.config.jwtSecret, {
        algorithm: 'HS256',
        subject: acc.userId,
        jwtid: 'x',
        expiresIn: -10,
      });
      expectError(await request(api.app).get('/auth/me').set(bearer(expired)), 401, 'token_expired');
    });

    it('401 invalid_token for a tampered token, alg none, and a wrong secret', async () => {
      const acc = await registerAccount(api.app);
      const [h, p, s] = acc.access.split('.');
      const payload = JSON.parse(Buffer.from(p!, 'base64url').toString());
      payload.role = 'admin';
      payload.org = '00000000-0000-4000-8000-000000000000';
      const tampered = `${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s}`;
      const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${p}.`;
      const wrongSecret = jwt.sign({ org: acc.orgId, role: 'admin', typ: 'access' }, 'another secret', { subject: acc.userId, jwtid: 'y', expiresIn: 60 });
      for (const token of [tampered, none, wrongSecret, 'not.a.jwt']) {
        expectError(await request(api.app).get('/auth/me').set(bearer(token)), 401, 'invalid_token');
      }
    });

    it('401 without credentials', async () => {
      expectError(await request(api.app).get('/auth/me'), 401, 'unauthenticated');
    });
  });

  describe('errors and headers', () => {
    it('unknown route: 404 JSON error with a request id header', async () => {
      const res = await request(api.app).get('/no/such/route');
      expectError(res, 404, 'not_found');
      expect(res.headers['x-request-id']).to.be.a('string').and.have.length.greaterThan(8);
    });

    it('keeps a sane caller-supplied request id', async () => {
      const res = await request(api.app).get('/health').set('X-Request-Id', 'lb-1234');
      expect(res.headers['x-request-id']).to.equal('lb-1234');
    });
  });
});

describe('rate limits on login, register and refresh', () => {
  let api: TestApi;
  before(async () => {
    api = await startTestApi({ AUTH_RATE_LIMIT: '3' });
  });
  after(() => api.close());

  it('answers 429 with Retry-After once the limit is used', async () => {
    for (let i = 0; i < 3; i += 1) {
      await request(api.app).post('/auth/login').send({ email: 'x@example.com', password: 'whatever whatever' }).expect(401);
    }
    const res = await request(api.app).post('/auth/login').send({ email: 'x@example.com', password: 'whatever whatever' });
    expectError(res, 429, 'rate_limited');
    expect(Number(res.headers['retry-after'])).to.be.greaterThan(0);
  });
});
