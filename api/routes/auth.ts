import { Router } from 'express';
import { authenticate, requireUser } from '../auth/authenticate.js';
import { anonymousActor } from '../audit-actor.js';
import { principalOf } from '../auth/principal.js';
import { loginThrottle } from '../auth/login-throttle.js';
import type { AppContext } from '../context.js';
import type { RateLimiters } from '../rate-limit.js';
import { dummyPasswordHash, login, logout, refreshSession, registerOrganisation, type AuthDeps, type LoginDeps } from '../services/auth.js';
import { LoginInput, LogoutInput, RefreshInput, RegisterInput } from '../schemas/auth.js';
import { parseBody } from '../validation.js';
import { MePatch } from '../schemas/identity-certificates.js';
import { setMyName } from '../services/identity-certificates.js';

export function authRouter(ctx: AppContext, limits: RateLimiters): Router {
  const router = Router();
  const deps: AuthDeps = { knex: ctx.knex, jwtSecret: ctx.config.jwtSecret, bcryptRounds: ctx.config.bcryptRounds, passwords: ctx.passwords };
  const loginDeps: LoginDeps = { ...deps, throttle: loginThrottle(ctx.knex, ctx.config.loginFailureLimit), dummyHash: dummyPasswordHash(deps) };

  router.post('/register', limits.auth, async (req, res) => {
    const body = parseBody(RegisterInput, req.body);
    res.status(201).json(await registerOrganisation(deps, body, anonymousActor(req), req.log));
  });

  router.post('/login', limits.auth, async (req, res) => {
    const body = parseBody(LoginInput, req.body);
    // Throttled per account, from any address, beside limits.auth per address.
    res.json(await login(loginDeps, body, anonymousActor(req)));
  });

  router.post('/refresh', limits.auth, async (req, res) => {
    const body = parseBody(RefreshInput, req.body);
    res.json(await refreshSession(deps, body.refresh_token, anonymousActor(req)));
  });

  router.post('/logout', authenticate(ctx.passport), requireUser, async (req, res) => {
    const body = parseBody(LogoutInput, req.body);
    const p = principalOf(req);
    if (p.kind !== 'user') throw new Error('unreachable: requireUser');
    await logout(deps, p, { refreshToken: body.refresh_token, all: body.all });
    res.status(204).end();
  });

  router.get('/me', authenticate(ctx.passport), requireUser, (req, res) => {
    const p = principalOf(req);
    if (p.kind !== 'user') throw new Error('unreachable: requireUser');
    res.json({ user_id: p.userId, email: p.email, name: p.name ?? null, org_id: p.orgId, role: p.role });
  });

  router.patch('/me', authenticate(ctx.passport), requireUser, async (req, res) => {
    const p = principalOf(req);
    if (p.kind !== 'user') throw new Error('unreachable: requireUser');
    const { name } = parseBody(MePatch, req.body);
    const user = await setMyName(ctx.knex, p.userId, name);
    res.json({ user_id: user.user_id, email: user.email, name: user.name, org_id: user.org_id, role: user.role });
  });

  return router;
}
