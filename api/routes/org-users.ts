import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import type { Knex } from 'knex';
import { z } from 'zod';
import { isUniqueViolation } from '../../shared/db/errors.js';
import { Organisation } from '../../shared/db/models/organisation.js';
import { User } from '../../shared/db/models/user.js';
import { hashPassword } from '../../shared/passwords.js';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { principalOf } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { conflict, notFound, parseBody, uuidParam } from '../errors.js';
import { checkPasswordStrength, emailField, passwordField, roleField } from '../validation.js';

const createBody = z.object({ email: emailField, password: passwordField, role: roleField });
const patchBody = z.object({ role: roleField });

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

  /**
   * @openapi
   * /org/users:
   *   get:
   *     tags: [Organisation]
   *     summary: List the users of the caller's organisation (admin)
   *     security: [{ bearerAuth: [] }]
   *     responses:
   *       200: { description: Users, content: { application/json: { schema: { type: object, properties: { users: { type: array, items: { $ref: '#/components/schemas/OrgUser' } } } } } } }
   *       401: { $ref: '#/components/responses/Unauthenticated' }
   *       403: { $ref: '#/components/responses/Forbidden' }
   *   post:
   *     tags: [Organisation]
   *     summary: Add a user with a role to the caller's organisation (admin)
   *     security: [{ bearerAuth: [] }]
   *     requestBody:
   *       required: true
   *       content: { application/json: { schema: { $ref: '#/components/schemas/NewOrgUser' } } }
   *     responses:
   *       201: { description: Created user, content: { application/json: { schema: { $ref: '#/components/schemas/OrgUser' } } } }
   *       400: { $ref: '#/components/responses/ValidationError' }
   *       401: { $ref: '#/components/responses/Unauthenticated' }
   *       403: { $ref: '#/components/responses/Forbidden' }
   *       409: { $ref: '#/components/responses/Conflict' }
   */
  router.get('/', async (req, res) => {
    const users = await User.query().where({ org_id: principalOf(req).orgId }).orderBy('created_at');
    res.json({ users: users.map((u) => u.toPublic()) });
  });

  router.post('/', async (req, res) => {
    const { orgId } = principalOf(req);
    const body = parseBody(createBody, req.body);
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

  /**
   * @openapi
   * /org/users/{user_id}:
   *   parameters:
   *     - { name: user_id, in: path, required: true, schema: { type: string, format: uuid } }
   *   patch:
   *     tags: [Organisation]
   *     summary: Change a user's role (admin); the last admin cannot be demoted
   *     security: [{ bearerAuth: [] }]
   *     requestBody:
   *       required: true
   *       content: { application/json: { schema: { type: object, required: [role], properties: { role: { $ref: '#/components/schemas/Role' } } } } }
   *     responses:
   *       200: { description: Updated user, content: { application/json: { schema: { $ref: '#/components/schemas/OrgUser' } } } }
   *       400: { $ref: '#/components/responses/ValidationError' }
   *       401: { $ref: '#/components/responses/Unauthenticated' }
   *       403: { $ref: '#/components/responses/Forbidden' }
   *       404: { $ref: '#/components/responses/NotFound' }
   *       409: { $ref: '#/components/responses/Conflict' }
   *   delete:
   *     tags: [Organisation]
   *     summary: Remove a user (admin); the last admin cannot be removed
   *     security: [{ bearerAuth: [] }]
   *     responses:
   *       204: { description: Removed }
   *       400: { $ref: '#/components/responses/ValidationError' }
   *       401: { $ref: '#/components/responses/Unauthenticated' }
   *       403: { $ref: '#/components/responses/Forbidden' }
   *       404: { $ref: '#/components/responses/NotFound' }
   *       409: { $ref: '#/components/responses/Conflict' }
   */
  router.patch('/:user_id', async (req, res) => {
    const { orgId } = principalOf(req);
    const userId = uuidParam(req.params.user_id, 'user_id');
    const body = parseBody(patchBody, req.body);
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
    const userId = uuidParam(req.params.user_id, 'user_id');
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
