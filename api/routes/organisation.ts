import { Router } from 'express';
import { z } from 'zod';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { principalOf } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { parseBody } from '../errors.js';
import { getOrganisation, updateOrganisationSettings } from '../services/organisation.js';
import { nameField } from '../validation.js';

const settingsBody = z
  .object({ name: nameField(200).optional(), discoverable: z.boolean().optional(), soft_binding: z.boolean().optional() })
  .strict()
  .refine((b) => b.name !== undefined || b.discoverable !== undefined || b.soft_binding !== undefined, { message: 'give name, discoverable or soft_binding' });

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
   *     summary: "Change the organisation's settings: its name (the signing certificate is reissued with it), whether its signed files are discoverable and whether its images get a soft binding"
   *     description: "name: signatures name the organisation, so a rename issues a new signing certificate (and key) at once with the new name in its subject; files signed before keep the old name, which was right when they were signed (the old certificate is not revoked). If the new certificate cannot be issued (vault or CA unavailable), nothing changes and the answer is 503. discoverable (default true): whether the organisation's signed files can be found in the public manifest repository (lookup by content or binding, GET /v1/manifests/{id}); files whose sign request or template chose for themselves keep that choice, all others follow the setting at once. soft_binding (default true): whether images signed from now on get an ISCC fingerprint, as a c2pa.soft-binding assertion in their manifest and a row in the soft-binding index (so a copy stripped of its manifest can be matched back by content); off, signing skips the fingerprint (cheaper, see the README) and such files can only be found by their embedded manifest. Sign requests and templates may choose for themselves. Files signed before keep what they were signed with."
   *     security: [{ bearerAuth: [] }]
   *     requestBody:
   *       required: true
   *       content: { application/json: { schema: { type: object, properties: { name: { type: string, maxLength: 200 }, discoverable: { type: boolean }, soft_binding: { type: boolean } } } } }
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
   *         discoverable: { type: boolean, description: 'whether its signed files are discoverable in the public manifest repository (unless a request or template chose otherwise)' }
   *         soft_binding: { type: boolean, description: 'whether its images are signed with a soft binding: an ISCC fingerprint in the manifest (c2pa.soft-binding) and in the index that finds copies by content (unless a request or template chose otherwise)' }
   *         created_at: { type: string, format: date-time }
   */
  router.get('/', auth, async (req, res) => {
    res.json(await getOrganisation(ctx.knex, principalOf(req).orgId));
  });

  router.patch('/', auth, requirePermission('org:settings'), async (req, res) => {
    const { name, discoverable, soft_binding } = parseBody(settingsBody, req.body);
    const { orgId } = principalOf(req);
    res.json(await updateOrganisationSettings(ctx.knex, orgId, { name, discoverable, soft_binding }, req.log));
  });

  return router;
}
