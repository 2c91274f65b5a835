import { Router } from 'express';
import { z } from 'zod';
import { Organisation } from '../../shared/db/models/organisation.js';
import { orgSigningState, rotateOrgCertificate } from '../../shared/pki/org-signing.js';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { principalOf } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { ApiError, notFound, parseBody } from '../errors.js';
import { nameField } from '../validation.js';

const renameBody = z.object({ name: nameField(200) }).strict();

function view(org: Organisation) {
  return { org_id: org.id, name: org.name, created_at: org.created_at.toISOString() };
}

/** The caller's organisation: its name for every member; a rename for admins. Mount at /org. */
export function organisationRouter(ctx: AppContext): Router {
  const router = Router();
  const auth = authenticate(ctx.passport);

  /**
   * @openapi
   * /org:
   *   get:
   *     tags: [Organisation]
   *     summary: "The caller's organisation"
   *     security: [{ bearerAuth: [] }, { apiKeyAuth: [] }]
   *     responses:
   *       200: { description: The organisation, content: { application/json: { schema: { $ref: '#/components/schemas/Organisation' } } } }
   *       401: { $ref: '#/components/responses/Unauthenticated' }
   *   patch:
   *     tags: [Organisation]
   *     summary: "Rename the organisation; its signing certificate is reissued with the new name"
   *     description: "Signatures name the organisation, so a rename issues a new signing certificate (and key) at once with the new name in its subject; files signed before keep the old name, which was right when they were signed (the old certificate is not revoked). If the new certificate cannot be issued (vault or CA unavailable), nothing changes and the answer is 503."
   *     security: [{ bearerAuth: [] }]
   *     requestBody:
   *       required: true
   *       content: { application/json: { schema: { type: object, required: [name], properties: { name: { type: string, maxLength: 200 } } } } }
   *     responses:
   *       200: { description: Renamed, content: { application/json: { schema: { $ref: '#/components/schemas/Organisation' } } } }
   *       400: { $ref: '#/components/responses/ValidationError' }
   *       401: { $ref: '#/components/responses/Unauthenticated' }
   *       403: { $ref: '#/components/responses/Forbidden' }
   *       503: { description: "The new signing certificate could not be issued; the name is unchanged", content: { application/json: { schema: { $ref: '#/components/schemas/Error' } } } }
   * components:
   *   schemas:
   *     Organisation:
   *       type: object
   *       properties:
   *         org_id: { type: string, format: uuid }
   *         name: { type: string }
   *         created_at: { type: string, format: date-time }
   */
  router.get('/', auth, async (req, res) => {
    const org = await Organisation.query(ctx.knex).findById(principalOf(req).orgId);
    if (!org) throw notFound('organisation');
    res.json(view(org));
  });

  router.patch('/', auth, requirePermission('org:settings'), async (req, res) => {
    const { name } = parseBody(renameBody, req.body);
    const { orgId } = principalOf(req);
    const org = await Organisation.query(ctx.knex).findById(orgId);
    if (!org) throw notFound('organisation');
    if (org.name === name) {
      res.json(view(org));
      return;
    }
    const previous = org.name;
    await Organisation.query(ctx.knex).patch({ name }).where({ id: orgId });
    // An organisation that never had a certificate gets its first one with its first signature, already renamed.
    const hadCertificate = (await orgSigningState(ctx.knex, orgId)).state !== 'issuable';
    try {
      if (hadCertificate) await rotateOrgCertificate({ knex: ctx.knex, vault: ctx.vault, config: ctx.config, logger: req.log }, orgId);
    } catch (err) {
      await Organisation.query(ctx.knex).patch({ name: previous }).where({ id: orgId });
      req.log.error({ err: err instanceof Error ? err.message : String(err) }, 'rename: the new signing certificate could not be issued; name restored');
      throw new ApiError(503, 'certificate_unavailable', 'the signing certificate with the new name could not be issued; the name is unchanged, try again shortly', { 'Retry-After': '30' });
    }
    res.json(view((await Organisation.query(ctx.knex).findById(orgId))!));
  });

  return router;
}
