import { Router } from 'express';
import { z } from 'zod';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { principalOf } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { parseBody, uuidParam } from '../errors.js';
import { addOrgUser, changeUserRole, listOrgUsers, removeOrgUser } from '../services/org-users.js';
import { emailField, passwordField, roleField } from '../validation.js';

const createBody = z.object({ email: emailField, password: passwordField, role: roleField });
const patchBody = z.object({ role: roleField });

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
    res.json({ users: await listOrgUsers(ctx.knex, principalOf(req).orgId) });
  });

  router.post('/', async (req, res) => {
    const { orgId } = principalOf(req);
    const body = parseBody(createBody, req.body);
    res.status(201).json(await addOrgUser(ctx.knex, orgId, body, ctx.config.bcryptRounds));
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
    res.json(await changeUserRole(ctx.knex, orgId, userId, body.role));
  });

  router.delete('/:user_id', async (req, res) => {
    const { orgId } = principalOf(req);
    const userId = uuidParam(req.params.user_id, 'user_id');
    await removeOrgUser(ctx.knex, orgId, userId);
    res.status(204).end();
  });

  return router;
}
