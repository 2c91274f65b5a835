import { Router } from 'express';
import { z } from 'zod';
import { authenticate, requireUser } from '../auth/authenticate.js';
import { principalOf } from '../auth/principal.js';
import { loginThrottle } from '../auth/login-throttle.js';
import type { AppContext } from '../context.js';
import { parseBody } from '../errors.js';
import type { RateLimiters } from '../rate-limit.js';
import { dummyPasswordHash, login, logout, refreshSession, registerOrganisation, type AuthDeps, type LoginDeps } from '../services/auth.js';
import { emailField, nameField, passwordField } from '../validation.js';

const registerBody = z.object({ email: emailField, password: passwordField, org_name: nameField(200) });
const loginBody = z.object({ email: emailField, password: passwordField });
const refreshBody = z.object({ refresh_token: z.string().min(1, 'is required') });
const logoutBody = z.object({ refresh_token: z.string().min(1).optional(), all: z.boolean().optional() });

export function authRouter(ctx: AppContext, limits: RateLimiters): Router {
  const router = Router();
  const deps: AuthDeps = { knex: ctx.knex, jwtSecret: ctx.config.jwtSecret, bcryptRounds: ctx.config.bcryptRounds };
  const loginDeps: LoginDeps = { ...deps, throttle: loginThrottle(ctx.knex, ctx.config.loginFailureLimit), dummyHash: dummyPasswordHash(ctx.config.bcryptRounds) };

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
    res.status(201).json(await registerOrganisation(deps, body, req.log));
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
    // Throttled per account, from any address, beside limits.auth per address.
    res.json(await login(loginDeps, body));
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
    res.json(await refreshSession(deps, body.refresh_token));
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
    await logout(deps, p, { refreshToken: body.refresh_token, all: body.all });
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
