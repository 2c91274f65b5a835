import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { Organisation } from '../../shared/db/models/organisation.js';
import { awaitCertificateRequest, requestOrgCertificate } from '../../shared/pki/certificate-requests.js';
import { User } from '../../shared/db/models/user.js';
import { hashPassword, verifyPassword } from '../../shared/passwords.js';
import { authenticate, requireUser } from '../auth/authenticate.js';
import { principalOf } from '../auth/principal.js';
import { loginThrottle } from '../auth/login-throttle.js';
import { issueTokenPair, refreshTokenFamily, revokeSessions, rotateRefreshToken } from '../auth/token-pairs.js';
import type { AppContext } from '../context.js';
import { conflict, unauthenticated } from '../errors.js';
import { isUniqueViolation } from '../../shared/db/errors.js';
import type { RateLimiters } from '../rate-limit.js';
import { LoginInput, LogoutInput, RefreshInput, RegisterInput } from '../schemas/auth.js';
import { checkPasswordStrength, parseBody } from '../validation.js';

/** How long registration waits for the scheduler to issue the new organisation's certificate. */
const REGISTRATION_ISSUANCE_WAIT_MS = 5000;

export function authRouter(ctx: AppContext, limits: RateLimiters): Router {
  const router = Router();
  const secret = ctx.config.jwtSecret;
  // Compared against when the e-mail is unknown, so both failures take the same time.
  const dummyHash = hashPassword(randomUUID(), ctx.config.bcryptRounds);
  const throttle = loginThrottle(ctx.knex, ctx.config.loginFailureLimit);

  router.post('/register', limits.auth, async (req, res) => {
    const body = parseBody(RegisterInput, req.body);
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

  router.post('/login', limits.auth, async (req, res) => {
    const body = parseBody(LoginInput, req.body);
    // Per account, from any address (limits.auth is per address): 429 before the password is even checked.
    await throttle.attempt(body.email);
    const user = await User.query().findOne({ email: body.email });
    const ok = await verifyPassword(body.password, user?.password_hash ?? (await dummyHash));
    if (!user || !ok) throw unauthenticated('e-mail or password is incorrect', 'invalid_credentials');
    await throttle.succeeded(body.email);
    res.json(await issueTokenPair(secret, user));
  });

  router.post('/refresh', limits.auth, async (req, res) => {
    const body = parseBody(RefreshInput, req.body);
    res.json(await rotateRefreshToken(ctx.knex, secret, body.refresh_token));
  });

  router.post('/logout', authenticate(ctx.passport), requireUser, async (req, res) => {
    const body = parseBody(LogoutInput, req.body);
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

  router.get('/me', authenticate(ctx.passport), requireUser, (req, res) => {
    const p = principalOf(req);
    if (p.kind !== 'user') throw new Error('unreachable: requireUser');
    res.json({ user_id: p.userId, email: p.email, org_id: p.orgId, role: p.role });
  });

  return router;
}
