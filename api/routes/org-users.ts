import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import type { Knex } from 'knex';
import { isUniqueViolation } from '../../shared/db/errors.js';
import { Organisation } from '../../shared/db/models/organisation.js';
import { User } from '../../shared/db/models/user.js';
import { hashPassword } from '../../shared/passwords.js';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { principalOf } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { conflict, notFound } from '../errors.js';
import { NewOrgUser, OrgUserParams, OrgUserPatch } from '../schemas/org-users.js';
import { checkPasswordStrength, parseBody, parseParams } from '../validation.js';

/**
 * Locks the organisation row so that concurrent demotions or removals cannot both pass the
 * "another admin remains" check and leave the organisation without one.
 */
async function lockOrgAndCountOtherAdmins(trx: Knex.Transaction, orgId: string, userId: string): Promise<number> {
  await Organisation.query(trx).findById(orgId).forUpdate();
  const rows = await User.query(trx).where({ org_id: orgId, role: 'admin' }).whereNot({ id: userId }).count('* as n');
  return Number((rows[0] as unknown as { n: number }).n);
}

export function orgUsersRouter(ctx: AppContext): Router {
  const router = Router();
  router.use(authenticate(ctx.passport), requirePermission('org:users'));

  router.get('/', async (req, res) => {
    const users = await User.query().where({ org_id: principalOf(req).orgId }).orderBy('created_at');
    res.json({ users: users.map((u) => u.toPublic()) });
  });

  router.post('/', async (req, res) => {
    const { orgId } = principalOf(req);
    const body = parseBody(NewOrgUser, req.body);
    checkPasswordStrength(body.password, body.email);
    const passwordHash = await hashPassword(body.password, ctx.config.bcryptRounds);
    try {
      const user = await User.query().insert({ id: randomUUID(), org_id: orgId, email: body.email, password_hash: passwordHash, role: body.role }).returning('*');
      res.status(201).json(user.toPublic());
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict('an account with this e-mail already exists', 'email_taken');
      throw err;
    }
  });

  router.patch('/:user_id', async (req, res) => {
    const { orgId } = principalOf(req);
    const { user_id: userId } = parseParams(OrgUserParams, req.params);
    const body = parseBody(OrgUserPatch, req.body);
    const user = await ctx.knex.transaction(async (trx) => {
      const target = await User.query(trx).findOne({ id: userId, org_id: orgId });
      if (!target) throw notFound('user');
      if (target.role === 'admin' && body.role !== 'admin' && (await lockOrgAndCountOtherAdmins(trx, orgId, userId)) === 0) {
        throw conflict('the last admin of an organisation cannot be demoted', 'last_admin');
      }
      return target.$query(trx).patchAndFetch({ role: body.role, updated_at: new Date() });
    });
    res.json(user.toPublic());
  });

  router.delete('/:user_id', async (req, res) => {
    const { orgId } = principalOf(req);
    const { user_id: userId } = parseParams(OrgUserParams, req.params);
    await ctx.knex.transaction(async (trx) => {
      const target = await User.query(trx).findOne({ id: userId, org_id: orgId });
      if (!target) throw notFound('user');
      if (target.role === 'admin' && (await lockOrgAndCountOtherAdmins(trx, orgId, userId)) === 0) {
        throw conflict('the last admin of an organisation cannot be removed', 'last_admin');
      }
      await User.query(trx).deleteById(userId);
    });
    res.status(204).end();
  });

  return router;
}
