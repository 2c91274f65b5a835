import { Model } from 'objection';
import type { ManifestDefaults } from '../../domain/manifest-input.js';

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
  declare created_by: string | null;
  declare updated_by: string | null;
  declare created_at: Date;
  declare updated_at: Date;
  /** Set when deleted: the row and its versions stay, so jobs that used it keep their reference. */
  declare deleted_at: Date | null;

  static override get jsonAttributes(): string[] {
    return ['manifest'];
  }

  toPublic(): ManifestTemplateView {
    return {
      template_id: this.id,
      name: this.name,
      version: this.version,
      manifest: this.manifest,
      discoverable: this.discoverable ?? null,
      soft_binding: this.soft_binding ?? null,
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
  created_at: string;
  updated_at: string;
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
  declare created_by: string | null;
  declare created_at: Date;

  static override get jsonAttributes(): string[] {
    return ['manifest'];
  }
}
