/**
 * The manifest templates aggregate: manifest_templates (each template's current version) and
 * manifest_template_versions (every version it had, never changed).
 */
import { Model } from 'objection';
import type { ManifestDefaults } from '../../domain/manifest-input.js';
import type { ManifestPlacement } from '../../domain/manifest-placement.js';
import type { Knex } from '../knex.js';
import { applyPage, type PageRequest } from '../page.js';

/** An organisation's named manifest defaults; `version` goes up by one on every update (migration 007). */
export class ManifestTemplate extends Model {
  static override tableName = 'manifest_templates';
  declare id: string;
  declare org_id: string;
  declare name: string;
  declare version: number;
  declare manifest: ManifestDefaults;
  /** Whether files signed with it are discoverable in the manifest repository; null follows the organisation. */
  declare discoverable: boolean | null;
  /** Whether images signed with it get a soft binding (fingerprint); null follows the organisation. */
  declare soft_binding: boolean | null;
  /** Where files signed with it keep their manifest (migration 023); null: embedded. */
  declare manifest_placement: ManifestPlacement | null;
  /** Sign as the person too (CAWG identity) when a request gives no identity; null: the organisation alone. */
  declare identity: TemplateIdentity | null;
  declare created_by: string | null;
  declare updated_by: string | null;
  declare created_at: Date;
  declare updated_at: Date;
  /** Set when deleted: the row and its versions stay, so jobs that used it keep their reference. */
  declare deleted_at: Date | null;

  static override get jsonAttributes(): string[] {
    return ['manifest', 'identity'];
  }

  toPublic(): ManifestTemplateView {
    return {
      template_id: this.id,
      name: this.name,
      version: this.version,
      manifest: this.manifest,
      discoverable: this.discoverable ?? null,
      soft_binding: this.soft_binding ?? null,
      manifest_placement: this.manifest_placement ?? null,
      identity: this.identity ?? null,
      created_at: this.created_at.toISOString(),
      updated_at: this.updated_at.toISOString(),
    };
  }
}

export interface ManifestTemplateView {
  template_id: string;
  name: string;
  version: number;
  manifest: ManifestDefaults;
  discoverable: boolean | null;
  soft_binding: boolean | null;
  manifest_placement: ManifestPlacement | null;
  identity: TemplateIdentity | null;
  created_at: string;
  updated_at: string;
}

/** A template's CAWG identity setting: the roles a person signs with. */
export interface TemplateIdentity {
  roles: string[];
}

/** One saved version of a template, never changed: what jobs that used it were given. */
export class ManifestTemplateVersion extends Model {
  static override tableName = 'manifest_template_versions';
  static override get idColumn(): string[] {
    return ['template_id', 'version'];
  }
  declare template_id: string;
  declare version: number;
  declare org_id: string;
  declare name: string;
  declare manifest: ManifestDefaults;
  declare discoverable: boolean | null;
  declare soft_binding: boolean | null;
  declare manifest_placement: ManifestPlacement | null;
  declare identity: TemplateIdentity | null;
  declare created_by: string | null;
  declare created_at: Date;

  static override get jsonAttributes(): string[] {
    return ['manifest', 'identity'];
  }
}

/** What a template's version says: the same in the template's row and in its saved version. */
export interface TemplateContent {
  name: string;
  manifest: ManifestDefaults;
  discoverable: boolean | null;
  soft_binding: boolean | null;
  manifest_placement: ManifestPlacement | null;
  identity: TemplateIdentity | null;
}

/** The organisation's template unless deleted; with `forUpdate`, locked for the rest of the transaction. */
export async function findLiveTemplate(orgId: string, id: string, db?: Knex, options: { forUpdate?: boolean } = {}): Promise<ManifestTemplate | undefined> {
  const query = ManifestTemplate.query(db).findOne({ id, org_id: orgId }).whereNull('deleted_at');
  return options.forUpdate ? query.forUpdate() : query;
}

/** The organisation's template, deleted or not. */
export async function findTemplate(orgId: string, id: string, db?: Knex): Promise<ManifestTemplate | undefined> {
  return ManifestTemplate.query(db).findOne({ id, org_id: orgId });
}

/** A page of the organisation's live templates, newest first. */
export async function listLiveTemplates(orgId: string, page: PageRequest, db?: Knex): Promise<ManifestTemplate[]> {
  return applyPage(ManifestTemplate.query(db).where({ org_id: orgId }).whereNull('deleted_at'), page);
}

export async function insertTemplate(
  template: TemplateContent & Pick<ManifestTemplate, 'id' | 'org_id' | 'version' | 'created_by' | 'updated_by'>,
  db?: Knex,
): Promise<ManifestTemplate> {
  return ManifestTemplate.query(db).insert(template).returning('*');
}

/** Replaces the template's content and version; returns the updated row. */
export async function updateTemplate(id: string, change: TemplateContent & Pick<ManifestTemplate, 'version' | 'updated_by'>, db?: Knex): Promise<ManifestTemplate> {
  const [row] = (await ManifestTemplate.query(db)
    .patch({ ...change, updated_at: new Date() })
    .where({ id })
    .returning('*')) as unknown as ManifestTemplate[];
  return row!;
}

/** Marks the organisation's live template deleted; false when there was none. */
export async function markTemplateDeleted(orgId: string, id: string, db?: Knex): Promise<boolean> {
  const deleted = await ManifestTemplate.query(db).patch({ deleted_at: new Date() }).where({ id, org_id: orgId }).whereNull('deleted_at');
  return deleted > 0;
}

export async function insertTemplateVersion(
  version: TemplateContent & Pick<ManifestTemplateVersion, 'template_id' | 'version' | 'org_id' | 'created_by'>,
  db?: Knex,
): Promise<void> {
  await ManifestTemplateVersion.query(db).insert(version);
}

export async function findTemplateVersion(orgId: string, templateId: string, version: number, db?: Knex): Promise<ManifestTemplateVersion | undefined> {
  return ManifestTemplateVersion.query(db).findOne({ template_id: templateId, version, org_id: orgId });
}
