/**
 * An organisation's manifest templates: named manifest defaults whose every version is kept, so that jobs signed
 * with one keep naming what they were given.
 */
import { randomUUID } from 'node:crypto';
import { recordAuditEvent } from '../../shared/audit/record.js';
import type { AuditActor } from '../../shared/audit/vocabulary.js';
import { isUniqueViolation } from '../../shared/db/errors.js';
import type { Knex } from '../../shared/db/knex.js';
import type { PageRequest } from '../../shared/db/page.js';
import {
  findLiveTemplate,
  findTemplate,
  findTemplateVersion,
  insertTemplate,
  insertTemplateVersion,
  listLiveTemplates,
  markTemplateDeleted,
  updateTemplate as updateTemplateRow,
  type ManifestTemplate,
  type ManifestTemplateView,
  type TemplateContent,
} from '../../shared/db/repositories/manifest-templates.js';
import type { ManifestDefaults } from '../../shared/domain/manifest-input.js';
import { actorOf } from '../audit-actor.js';
import type { Principal } from '../auth/principal.js';
import { conflict, notFound } from '../errors.js';
import { pageResult } from '../pagination.js';

const nameTaken = (name: string) => conflict(`the organisation already has a template named “${name}”`, 'template_name_taken');
const userOf = (p: Principal) => (p.kind === 'user' ? p.userId : null);

/** The organisation's live (not deleted) template, or 404: another organisation's id is not found either. */
export async function liveTemplate(knex: Knex, orgId: string, id: string): Promise<ManifestTemplate> {
  const template = await findLiveTemplate(orgId, id, knex);
  if (!template) throw notFound('manifest template');
  return template;
}

/** A new template of the caller's organisation, at version 1; names are unique among its live templates. */
export async function createTemplate(knex: Knex, principal: Principal, content: TemplateContent): Promise<ManifestTemplateView> {
  const id = randomUUID();
  const author = userOf(principal);
  try {
    const template = await knex.transaction(async (trx) => {
      const row = await insertTemplate({ id, org_id: principal.orgId, version: 1, ...content, created_by: author, updated_by: author }, trx);
      await insertTemplateVersion({ template_id: id, version: 1, org_id: principal.orgId, ...content, created_by: author }, trx);
      await recordAuditEvent(trx, { action: 'template.created', actor: actorOf(principal), orgId: principal.orgId, target: { type: 'template', id }, details: { name: content.name, version: 1 } });
      return row;
    });
    return template.toPublic();
  } catch (err) {
    if (isUniqueViolation(err)) throw nameTaken(content.name);
    throw err;
  }
}

/** A page of the organisation's live templates, newest first. */
export async function listTemplates(knex: Knex, orgId: string, page: PageRequest): Promise<{ templates: ManifestTemplateView[]; next_cursor: string | null }> {
  const { items, next_cursor } = pageResult(await listLiveTemplates(orgId, page, knex), page);
  return { templates: items.map((t) => t.toPublic()), next_cursor };
}

export async function getTemplate(knex: Knex, orgId: string, id: string): Promise<ManifestTemplateView> {
  return (await liveTemplate(knex, orgId, id)).toPublic();
}

/** Replaces the template's name and defaults: its version goes up by one, and the new version is kept. */
export async function updateTemplate(knex: Knex, principal: Principal, id: string, content: TemplateContent): Promise<ManifestTemplateView> {
  const author = userOf(principal);
  try {
    const template = await knex.transaction(async (trx) => {
      // Locked, so two updates at once make two versions one after the other.
      const current = await findLiveTemplate(principal.orgId, id, trx, { forUpdate: true });
      if (!current) throw notFound('manifest template');
      const version = current.version + 1;
      const row = await updateTemplateRow(id, { ...content, version, updated_by: author }, trx);
      await insertTemplateVersion({ template_id: id, version, org_id: principal.orgId, ...content, created_by: author }, trx);
      await recordAuditEvent(trx, { action: 'template.changed', actor: actorOf(principal), orgId: principal.orgId, target: { type: 'template', id }, details: { name: content.name, version } });
      return row;
    });
    return template.toPublic();
  } catch (err) {
    if (isUniqueViolation(err)) throw nameTaken(content.name);
    throw err;
  }
}

/** Deletes a live template: no longer read, listed or signed with, its name free again; its versions are kept. */
export async function deleteTemplate(knex: Knex, orgId: string, id: string, actor: AuditActor): Promise<void> {
  await knex.transaction(async (trx) => {
    if (!(await markTemplateDeleted(orgId, id, trx))) throw notFound('manifest template');
    await recordAuditEvent(trx, { action: 'template.deleted', actor, orgId, target: { type: 'template', id } });
  });
}

export interface TemplateVersionView {
  template_id: string;
  version: number;
  name: string;
  manifest: ManifestDefaults;
  created_at: string;
  current_version: number;
  deleted: boolean;
}

/** One saved version, deleted template or not, so that a job's template reference always resolves. */
export async function getTemplateVersion(knex: Knex, orgId: string, id: string, version: number): Promise<TemplateVersionView> {
  const [saved, template] = await Promise.all([findTemplateVersion(orgId, id, version, knex), findTemplate(orgId, id, knex)]);
  if (!saved || !template) throw notFound('manifest template version');
  return {
    template_id: saved.template_id,
    version: saved.version,
    name: saved.name,
    manifest: saved.manifest,
    created_at: saved.created_at.toISOString(),
    current_version: template.version,
    deleted: template.deleted_at !== null,
  };
}
