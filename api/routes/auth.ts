import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { z } from 'zod';
import { Organisation } from '../../shared/db/models/organisation.js';
import { awaitCertificateRequest, requestOrgCertificate } from '../../shared/pki/certificate-requests.js';
import { User } from '../../shared/db/models/user.js';
import { hashPassword, verifyPassword } from '../../shared/passwords.js';
import { authenticate, requireUser } from '../auth/authenticate.js';
import { principalOf } from '../auth/principal.js';
import { loginThrottle } from '../auth/login-throttle.js';
import { issueTokenPair, refreshTokenFamily, revokeSessions, rotateRefreshToken } from '../auth/token-pairs.js';
import type { AppContext } from '../context.js';
import { conflict, parseBody, unauthenticated } from '../errors.js';
import { isUniqueViolation } from '../../shared/db/errors.js';
import type { RateLimiters } from '../rate-limit.js';
import { checkPasswordStrength, emailField, nameField, passwordField } from '../validation.js';

const registerBody = z.object({ email: emailField, password: passwordField, org_name: nameField(200) });
const loginBody = z.object({ email: emailField, password: passwordField });
/** How long registration waits for the scheduler to issue the new organisation's certificate. */
const REGISTRATION_ISSUANCE_WAIT_MS = 5000;

const refreshBody = z.object({ refresh_token: z.string().min(1, 'is required') });
const logoutBody = z.object({ refresh_token: z.string().min(1).optional(), all: z.boolean().optional() });

export function authRouter(ctx: AppContext, limits: RateLimiters): Router {
  const router = Router();
  const secret = ctx.config.jwtSecret;
  // Compared against when the e-mail is unknown, so both failures take the same time.
  const dummyHash = hashPassword(randomUUID(), ctx.config.bcryptRounds);
  const throttle = loginThrottle(ctx.knex, ctx.config.loginFailureLimit);

  /**
   * @openapi
   * /auth/register:
   *   post:
   *     tags: [Authentication]
   *     summary: Register a user together with a new organisation; the user becomes its admin
   *     requestBody:
   *       required: true
   *       content:
   *         application/json:
   *           schema: { $ref: '#/components/schemas/RegisterInput' }
   *     responses:
   *       201: { description: Token pair, content: { application/json: { schema: { $ref: '#/components/schemas/TokenPair' } } } }
   *       400: { $ref: '#/components/responses/ValidationError' }
   *       409: { $ref: '#/components/responses/Conflict' }
   *       429: { $ref: '#/components/responses/RateLimited' }
   */
  router.post('/register', limits.auth, async (req, res) => {
    const body = parseBody(registerBody, req.body);
    checkPasswordStrength(body.password, body.email);
    const passwordHash = await hashPassword(body.password, ctx.config.bcryptRounds);
    try {
      const { pair, requestId } = await ctx.knex.transaction(async (trx) => {
        if (await User.query(trx).findOne({ email: body.email })) throw conflict('an account with this e-mail already exists', 'email_taken');
        const org = await Organisation.query(trx).insert({ id: randomUUID(), name: body.org_name });
        const user = await User.query(trx).insert({ id: randomUUID(), org_id: org.id, email: body.email, password_hash: passwordHash, role: 'admin' });
        // The organisation's own signing certificate is asked for with it; the scheduler issues it (this role holds
        // no CA key), and a first signature waits for it if it comes first.
        const requestId = await requestOrgCertificate(trx, org.id, 'ensure');
        return { pair: await issueTokenPair(secret, user, trx), requestId };
      });
      // The organisation usually has its certificate when the answer arrives; the registration never depends on it.
      const outcome = await awaitCertificateRequest(ctx.knex, requestId, REGISTRATION_ISSUANCE_WAIT_MS);
      if (outcome.status !== 'done') req.log.warn({ requestId, outcome }, 'organisation certificate not issued at registration; the first signature waits for it');
      res.status(201).json(pair);
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict('an account with this e-mail already exists', 'email_taken');
      throw err;
    }
  });

  /**
   * @openapi
   * /auth/login:
   *   post:
   *     tags: [Authentication]
   *     summary: Sign in with e-mail and password
   *     requestBody:
   *       required: true
   *       content:
   *         application/json:
   *           schema: { $ref: '#/components/schemas/LoginInput' }
   *     responses:
   *       200: { description: Token pair, content: { application/json: { schema: { $ref: '#/components/schemas/TokenPair' } } } }
   *       400: { $ref: '#/components/responses/ValidationError' }
   *       401: { $ref: '#/components/responses/Unauthenticated' }
   *       429: { $ref: '#/components/responses/RateLimited' }
   */
  router.post('/login', limits.auth, async (req, res) => {
    const body = parseBody(loginBody, req.body);
    // Per account, from any address (limits.auth is per address): 429 before the password is even checked.
    await throttle.attempt(body.email);
    const user = await User.query().findOne({ email: body.email });
    const ok = await verifyPassword(body.password, user?.password_hash ?? (await dummyHash));
    if (!user || !ok) throw unauthenticated('e-mail or password is incorrect', 'invalid_credentials');
    await throttle.succeeded(body.email);
    res.json(await issueTokenPair(secret, user));
  });

  /**
   * @openapi
   * /auth/refresh:
   *   post:
   *     tags: [Authentication]
   *     summary: Exchange a refresh token for a new pair (single use; reuse signs the whole family out)
   *     requestBody:
   *       required: true
   *       content:
   *         application/json:
   *           schema: { type: object, required: [refresh_token], properties: { refresh_token: { type: string } } }
   *     responses:
   *       200: { description: New token pair, content: { application/json: { schema: { $ref: '#/components/schemas/TokenPair' } } } }
   *       400: { $ref: '#/components/responses/ValidationError' }
   *       401: { $ref: '#/components/responses/Unauthenticated' }
   *       429: { $ref: '#/components/responses/RateLimited' }
   */
  router.post('/refresh', limits.auth, async (req, res) => {
    const body = parseBody(refreshBody, req.body);
    res.json(await rotateRefreshToken(ctx.knex, secret, body.refresh_token));
  });

  /**
   * @openapi
   * /auth/logout:
   *   post:
   *     tags: [Authentication]
   *     summary: Sign out this session (or every session of the user)
   *     description: "Revokes the refresh tokens of the session the access token belongs to; from then on that session's access tokens are refused (401) too, not only when they expire. `refresh_token` signs out that token's session as well (for access tokens issued before sessions were named); `all: true` signs out every session of the user. Answers 204."
   *     security: [{ bearerAuth: [] }]
   *     requestBody:
   *       required: false
   *       content:
   *         application/json:
   *           schema: { type: object, properties: { refresh_token: { type: string }, all: { type: boolean, default: false } } }
   *     responses:
   *       204: { description: Signed out }
   *       400: { $ref: '#/components/responses/ValidationError' }
   *       401: { $ref: '#/components/responses/Unauthenticated' }
   *       403: { $ref: '#/components/responses/Forbidden' }
   */
  router.post('/logout', authenticate(ctx.passport), requireUser, async (req, res) => {
    const body = parseBody(logoutBody, req.body);
    const p = principalOf(req);
    if (p.kind !== 'user') throw new Error('unreachable: requireUser');
    if (body.all) {
      await revokeSessions(ctx.knex, { allOf: p.userId });
    } else {
      const given = body.refresh_token ? await refreshTokenFamily(ctx.knex, secret, body.refresh_token, p.userId) : undefined;
      for (const familyId of new Set([p.familyId, given])) {
        if (familyId) await revokeSessions(ctx.knex, { familyId, userId: p.userId });
      }
    }
    res.status(204).end();
  });

  /**
   * @openapi
   * /auth/me:
   *   get:
   *     tags: [Authentication]
   *     summary: The signed-in user
   *     security: [{ bearerAuth: [] }]
   *     responses:
   *       200: { description: Identity, content: { application/json: { schema: { $ref: '#/components/schemas/Me' } } } }
   *       401: { $ref: '#/components/responses/Unauthenticated' }
   *       403: { $ref: '#/components/responses/Forbidden' }
   */
  router.get('/me', authenticate(ctx.passport), requireUser, (req, res) => {
    const p = principalOf(req);
    if (p.kind !== 'user') throw new Error('unreachable: requireUser');
    res.json({ user_id: p.userId, email: p.email, org_id: p.orgId, role: p.role });
  });

  return router;
}
