import { Router } from 'express';
import { z } from 'zod';
import { parseManifestDefaults, TEMPLATE_FIELDS } from '../../shared/c2pa/parse-manifest.js';
import type { ManifestDefaults } from '../../shared/domain/manifest-input.js';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { principalOf } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { badRequest, discoverableField, parseBody, uuidParam } from '../errors.js';
import { pageRequest } from '../pagination.js';
import { createTemplate, deleteTemplate, getTemplate, getTemplateVersion, listTemplates, updateTemplate } from '../services/manifest-templates.js';
import { choiceOrOrgSetting, nameField } from '../validation.js';

export const TEMPLATE_NAME_MAX = 100;
const nameBody = z.object({ name: nameField(TEMPLATE_NAME_MAX) });

/** A create or update body: `{ name, manifest }`, the manifest checked by the sign request's own field rules. */
function parseTemplateBody(body: unknown): { name: string; manifest: ManifestDefaults; discoverable: boolean | null; soft_binding: boolean | null } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('the body must be a JSON object with name and manifest');
  const obj = body as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    if (key === 'name' || key === 'manifest' || key === 'discoverable' || key === 'soft_binding') continue;
    const hint = (TEMPLATE_FIELDS as readonly string[]).includes(key) ? `; manifest defaults go inside manifest (manifest.${key})` : '';
    throw badRequest(`${key} is not a template field${hint}`);
  }
  const { name } = parseBody(nameBody, { name: obj.name });
  if (obj.manifest === undefined) throw badRequest('manifest is required (the defaults; {} for none)');
  const discoverable = discoverableField(obj.discoverable);
  const softBinding = choiceOrOrgSetting('soft_binding', obj.soft_binding);
  return { name, manifest: parseManifestDefaults(obj.manifest), discoverable, soft_binding: softBinding };
}

function versionParam(value: unknown): number {
  if (typeof value !== 'string' || !/^[1-9]\d{0,8}$/.test(value)) throw badRequest('version must be a whole number from 1', 'invalid_parameter');
  return Number(value);
}

export function manifestTemplatesRouter(ctx: AppContext): Router {
  const router = Router();
  router.use(authenticate(ctx.passport));

  /**
   * @openapi
   * /v1/manifest-templates:
   *   post:
   *     tags: [Manifest templates]
   *     summary: Create a manifest template (admin); it starts at version 1
   *     description: The defaults use the sign request's manifest fields and rules, without title and dateCreated (given per request). Names are unique among the organisation's templates (409 template_name_taken).
   *     security: [{ bearerAuth: [] }]
   *     requestBody:
   *       required: true
   *       content: { application/json: { schema: { $ref: '#/components/schemas/ManifestTemplateInput' } } }
   *     responses:
   *       201: { description: The template, content: { application/json: { schema: { $ref: '#/components/schemas/ManifestTemplate' } } } }
   *       400: { $ref: '#/components/responses/ValidationError' }
   *       401: { $ref: '#/components/responses/Unauthenticated' }
   *       403: { $ref: '#/components/responses/Forbidden' }
   *       409: { $ref: '#/components/responses/Conflict' }
   *   get:
   *     tags: [Manifest templates]
   *     summary: The organisation's manifest templates (current versions), newest first
   *     description: Deleted templates are not listed. Admins, signers, viewers and API keys may read templates.
   *     security: [{ bearerAuth: [] }, { apiKeyAuth: [] }]
   *     parameters:
   *       - $ref: '#/components/parameters/Limit'
   *       - $ref: '#/components/parameters/Cursor'
   *     responses:
   *       200: { description: A page of templates, content: { application/json: { schema: { type: object, properties: { templates: { type: array, items: { $ref: '#/components/schemas/ManifestTemplate' } }, next_cursor: { type: string, nullable: true } } } } } }
   *       400: { $ref: '#/components/responses/ValidationError' }
   *       401: { $ref: '#/components/responses/Unauthenticated' }
   *       403: { $ref: '#/components/responses/Forbidden' }
   */
  router.post('/', requirePermission('templates:manage'), async (req, res) => {
    const principal = principalOf(req);
    const template = await createTemplate(ctx.knex, principal, parseTemplateBody(req.body));
    res.status(201).location(`/v1/manifest-templates/${template.template_id}`).json(template);
  });

  router.get('/', requirePermission('templates:read'), async (req, res) => {
    const page = pageRequest(req.query);
    res.json(await listTemplates(ctx.knex, principalOf(req).orgId, page));
  });

  /**
   * @openapi
   * /v1/manifest-templates/{template_id}:
   *   get:
   *     tags: [Manifest templates]
   *     summary: A manifest template's current version
   *     security: [{ bearerAuth: [] }, { apiKeyAuth: [] }]
   *     parameters:
   *       - { name: template_id, in: path, required: true, schema: { type: string, format: uuid } }
   *     responses:
   *       200: { description: The template, content: { application/json: { schema: { $ref: '#/components/schemas/ManifestTemplate' } } } }
   *       400: { $ref: '#/components/responses/ValidationError' }
   *       401: { $ref: '#/components/responses/Unauthenticated' }
   *       403: { $ref: '#/components/responses/Forbidden' }
   *       404: { $ref: '#/components/responses/NotFound' }
   *   put:
   *     tags: [Manifest templates]
   *     summary: Replace a manifest template's name and defaults (admin); its version goes up by one
   *     description: A full replacement, with the same body as create (defaults left out are removed). Every update makes a new version, kept for good; jobs signed with an earlier version keep it, and the manifest they applied, unchanged.
   *     security: [{ bearerAuth: [] }]
   *     parameters:
   *       - { name: template_id, in: path, required: true, schema: { type: string, format: uuid } }
   *     requestBody:
   *       required: true
   *       content: { application/json: { schema: { $ref: '#/components/schemas/ManifestTemplateInput' } } }
   *     responses:
   *       200: { description: The template at its new version, content: { application/json: { schema: { $ref: '#/components/schemas/ManifestTemplate' } } } }
   *       400: { $ref: '#/components/responses/ValidationError' }
   *       401: { $ref: '#/components/responses/Unauthenticated' }
   *       403: { $ref: '#/components/responses/Forbidden' }
   *       404: { $ref: '#/components/responses/NotFound' }
   *       409: { $ref: '#/components/responses/Conflict' }
   *   delete:
   *     tags: [Manifest templates]
   *     summary: Delete a manifest template (admin)
   *     description: It can no longer be read, listed or signed with, and its name is free again. Its versions are kept, so jobs that used it still name it and GET /v1/manifest-templates/{template_id}/versions/{version} still answers.
   *     security: [{ bearerAuth: [] }]
   *     parameters:
   *       - { name: template_id, in: path, required: true, schema: { type: string, format: uuid } }
   *     responses:
   *       204: { description: Deleted }
   *       400: { $ref: '#/components/responses/ValidationError' }
   *       401: { $ref: '#/components/responses/Unauthenticated' }
   *       403: { $ref: '#/components/responses/Forbidden' }
   *       404: { $ref: '#/components/responses/NotFound' }
   */
  router.get('/:template_id', requirePermission('templates:read'), async (req, res) => {
    res.json(await getTemplate(ctx.knex, principalOf(req).orgId, uuidParam(req.params.template_id, 'template_id')));
  });

  router.put('/:template_id', requirePermission('templates:manage'), async (req, res) => {
    const principal = principalOf(req);
    const id = uuidParam(req.params.template_id, 'template_id');
    res.json(await updateTemplate(ctx.knex, principal, id, parseTemplateBody(req.body)));
  });

  router.delete('/:template_id', requirePermission('templates:manage'), async (req, res) => {
    const id = uuidParam(req.params.template_id, 'template_id');
    await deleteTemplate(ctx.knex, principalOf(req).orgId, id);
    res.status(204).end();
  });

  /**
   * @openapi
   * /v1/manifest-templates/{template_id}/versions/{version}:
   *   get:
   *     tags: [Manifest templates]
   *     summary: One saved version of a manifest template, as jobs that used it were given it
   *     description: Answers for deleted templates too (deleted is then true), so a job's template reference always resolves.
   *     security: [{ bearerAuth: [] }, { apiKeyAuth: [] }]
   *     parameters:
   *       - { name: template_id, in: path, required: true, schema: { type: string, format: uuid } }
   *       - { name: version, in: path, required: true, schema: { type: integer, minimum: 1 } }
   *     responses:
   *       200: { description: The version, content: { application/json: { schema: { $ref: '#/components/schemas/ManifestTemplateVersion' } } } }
   *       400: { $ref: '#/components/responses/ValidationError' }
   *       401: { $ref: '#/components/responses/Unauthenticated' }
   *       403: { $ref: '#/components/responses/Forbidden' }
   *       404: { $ref: '#/components/responses/NotFound' }
   */
  router.get('/:template_id/versions/:version', requirePermission('templates:read'), async (req, res) => {
    const { orgId } = principalOf(req);
    const id = uuidParam(req.params.template_id, 'template_id');
    const version = versionParam(req.params.version);
    res.json(await getTemplateVersion(ctx.knex, orgId, id, version));
  });

  return router;
}
