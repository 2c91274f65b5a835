import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { isUniqueViolation } from '../../shared/db/errors.js';
import { ManifestTemplate, ManifestTemplateVersion } from '../../shared/db/models/manifest-template.js';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { principalOf, type Principal } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { conflict, notFound } from '../errors.js';
import { applyPage, pageResult } from '../pagination.js';
import { pageQuery } from '../schemas/common.js';
import { ManifestTemplateInput, TemplateParams, TemplateVersionParams } from '../schemas/manifest-templates.js';
import { parseBody, parseParams } from '../validation.js';

const nameTaken = (name: string) => conflict(`the organisation already has a template named “${name}”`, 'template_name_taken');
const userOf = (p: Principal) => (p.kind === 'user' ? p.userId : null);

/** The organisation's live (not deleted) template, or 404: another organisation's id is not found either. */
async function liveTemplate(orgId: string, id: string): Promise<ManifestTemplate> {
  const template = await ManifestTemplate.query().findOne({ id, org_id: orgId }).whereNull('deleted_at');
  if (!template) throw notFound('manifest template');
  return template;
}

export function manifestTemplatesRouter(ctx: AppContext): Router {
  const router = Router();
  router.use(authenticate(ctx.passport));

  router.post('/', requirePermission('templates:manage'), async (req, res) => {
    const principal = principalOf(req);
    const { name, manifest, discoverable, soft_binding } = parseBody(ManifestTemplateInput, req.body);
    const id = randomUUID();
    const author = userOf(principal);
    let template: ManifestTemplate;
    try {
      template = await ctx.knex.transaction(async (trx) => {
        const row = await ManifestTemplate.query(trx)
          .insert({ id, org_id: principal.orgId, name, version: 1, manifest, discoverable, soft_binding, created_by: author, updated_by: author })
          .returning('*');
        await ManifestTemplateVersion.query(trx).insert({ template_id: id, version: 1, org_id: principal.orgId, name, manifest, discoverable, soft_binding, created_by: author });
        return row;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw nameTaken(name);
      throw err;
    }
    res.status(201).location(`/v1/manifest-templates/${id}`).json(template.toPublic());
  });

  router.get('/', requirePermission('templates:read'), async (req, res) => {
    const page = parseParams(pageQuery, req.query);
    const query = ManifestTemplate.query().where({ org_id: principalOf(req).orgId }).whereNull('deleted_at');
    const { items, next_cursor } = pageResult(await applyPage(query, page), page);
    res.json({ templates: items.map((t) => t.toPublic()), next_cursor });
  });

  router.get('/:template_id', requirePermission('templates:read'), async (req, res) => {
    const template = await liveTemplate(principalOf(req).orgId, parseParams(TemplateParams, req.params).template_id);
    res.json(template.toPublic());
  });

  router.put('/:template_id', requirePermission('templates:manage'), async (req, res) => {
    const principal = principalOf(req);
    const { template_id: id } = parseParams(TemplateParams, req.params);
    const { name, manifest, discoverable, soft_binding } = parseBody(ManifestTemplateInput, req.body);
    const author = userOf(principal);
    let template: ManifestTemplate;
    try {
      template = await ctx.knex.transaction(async (trx) => {
        // Locked, so two updates at once make two versions one after the other.
        const current = await ManifestTemplate.query(trx).findOne({ id, org_id: principal.orgId }).whereNull('deleted_at').forUpdate();
        if (!current) throw notFound('manifest template');
        const version = current.version + 1;
        const [row] = (await ManifestTemplate.query(trx)
          .patch({ name, manifest, discoverable, soft_binding, version, updated_by: author, updated_at: new Date() })
          .where({ id })
          .returning('*')) as unknown as ManifestTemplate[];
        await ManifestTemplateVersion.query(trx).insert({ template_id: id, version, org_id: principal.orgId, name, manifest, discoverable, soft_binding, created_by: author });
        return row!;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw nameTaken(name);
      throw err;
    }
    res.json(template.toPublic());
  });

  router.delete('/:template_id', requirePermission('templates:manage'), async (req, res) => {
    const { template_id: id } = parseParams(TemplateParams, req.params);
    const deleted = await ManifestTemplate.query().patch({ deleted_at: new Date() }).where({ id, org_id: principalOf(req).orgId }).whereNull('deleted_at');
    if (!deleted) throw notFound('manifest template');
    res.status(204).end();
  });

  router.get('/:template_id/versions/:version', requirePermission('templates:read'), async (req, res) => {
    const { orgId } = principalOf(req);
    const { template_id: id, version } = parseParams(TemplateVersionParams, req.params);
    const [saved, template] = await Promise.all([
      ManifestTemplateVersion.query().findOne({ template_id: id, version, org_id: orgId }),
      ManifestTemplate.query().findOne({ id, org_id: orgId }),
    ]);
    if (!saved || !template) throw notFound('manifest template version');
    res.json({
      template_id: saved.template_id,
      version: saved.version,
      name: saved.name,
      manifest: saved.manifest,
      created_at: saved.created_at.toISOString(),
      current_version: template.version,
      deleted: template.deleted_at !== null,
    });
  });

  return router;
}
