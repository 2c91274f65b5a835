import { Model } from 'objection';

export class ApiKey extends Model {
  static override tableName = 'api_keys';
  declare id: string;
  declare org_id: string;
  declare name: string;
  declare prefix: string;
  declare key_hash: string;
  declare created_by: string | null;
  declare created_at: Date;
  declare last_used_at: Date | null;
  declare revoked_at: Date | null;

  /** Listing shape: everything but the hash; the raw key is never stored. */
  toPublic(): { key_id: string; name: string; prefix: string; created_at: string; last_used_at: string | null; revoked_at: string | null } {
    return {
      key_id: this.id,
      name: this.name,
      prefix: this.prefix,
      created_at: this.created_at.toISOString(),
      last_used_at: this.last_used_at?.toISOString() ?? null,
      revoked_at: this.revoked_at?.toISOString() ?? null,
    };
  }
}
