import { Router } from 'express';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { actorOf } from '../audit-actor.js';
import { principalOf } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { pageQuery } from '../schemas/common.js';
import { ManifestTemplateInput, TemplateParams, TemplateVersionParams } from '../schemas/manifest-templates.js';
import { createTemplate, deleteTemplate, getTemplate, getTemplateVersion, listTemplates, updateTemplate } from '../services/manifest-templates.js';
import { parseBody, parseParams } from '../validation.js';

export function manifestTemplatesRouter(ctx: AppContext): Router {
  const router = Router();
  router.use(authenticate(ctx.passport));

  router.post('/', requirePermission('templates:manage'), async (req, res) => {
    const principal = principalOf(req);
    const template = await createTemplate(ctx.knex, principal, parseBody(ManifestTemplateInput, req.body));
    res.status(201).location(`/v1/manifest-templates/${template.template_id}`).json(template);
  });

  router.get('/', requirePermission('templates:read'), async (req, res) => {
    const page = parseParams(pageQuery, req.query);
    res.json(await listTemplates(ctx.knex, principalOf(req).orgId, page));
  });

  router.get('/:template_id', requirePermission('templates:read'), async (req, res) => {
    res.json(await getTemplate(ctx.knex, principalOf(req).orgId, parseParams(TemplateParams, req.params).template_id));
  });

  router.put('/:template_id', requirePermission('templates:manage'), async (req, res) => {
    const principal = principalOf(req);
    const { template_id: id } = parseParams(TemplateParams, req.params);
    res.json(await updateTemplate(ctx.knex, principal, id, parseBody(ManifestTemplateInput, req.body)));
  });

  router.delete('/:template_id', requirePermission('templates:manage'), async (req, res) => {
    const { template_id: id } = parseParams(TemplateParams, req.params);
    await deleteTemplate(ctx.knex, principalOf(req).orgId, id, actorOf(principalOf(req)));
    res.status(204).end();
  });

  router.get('/:template_id/versions/:version', requirePermission('templates:read'), async (req, res) => {
    const { orgId } = principalOf(req);
    const { template_id: id, version } = parseParams(TemplateVersionParams, req.params);
    res.json(await getTemplateVersion(ctx.knex, orgId, id, version));
  });

  return router;
}
