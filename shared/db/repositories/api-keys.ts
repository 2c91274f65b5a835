/** The api_keys table: organisations' machine credentials, stored as hashes. */
import { randomUUID } from 'node:crypto';
import { Model } from 'objection';
import type { Knex } from '../knex.js';

export class ApiKey extends Model {
  static override tableName = 'api_keys';
  declare id: string;
  declare org_id: string;
  declare name: string;
  declare prefix: string;
  declare key_hash: string;
  declare created_by: string | null;
  /** The user the key signs as (CAWG identity), bound by an admin at creation; null: the organisation alone. */
  declare user_id: string | null;
  declare created_at: Date;
  declare last_used_at: Date | null;
  declare revoked_at: Date | null;

  /** Listing shape: everything but the hash; the raw key is never stored. */
  toPublic(): ApiKeyView {
    return {
      key_id: this.id,
      name: this.name,
      prefix: this.prefix,
      user_id: this.user_id ?? null,
      created_at: this.created_at.toISOString(),
      last_used_at: this.last_used_at?.toISOString() ?? null,
      revoked_at: this.revoked_at?.toISOString() ?? null,
    };
  }
}

export interface ApiKeyView {
  key_id: string;
  name: string;
  prefix: string;
  user_id: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export async function insertApiKey(key: Pick<ApiKey, 'org_id' | 'name' | 'prefix' | 'key_hash' | 'created_by'> & { user_id?: string | null }, db?: Knex): Promise<ApiKey> {
  return ApiKey.query(db).insert({ id: randomUUID(), ...key }).returning('*');
}

/** The organisation's keys, revoked ones included, newest first. */
export async function listOrgApiKeys(orgId: string, db?: Knex): Promise<ApiKey[]> {
  return ApiKey.query(db).where({ org_id: orgId }).orderBy('created_at', 'desc');
}

export async function findOrgApiKey(orgId: string, id: string, db?: Knex): Promise<ApiKey | undefined> {
  return ApiKey.query(db).findOne({ id, org_id: orgId });
}

/** The unrevoked key with this hash, if any. */
export async function findActiveApiKeyByHash(keyHash: string, db?: Knex): Promise<ApiKey | undefined> {
  return ApiKey.query(db).findOne({ key_hash: keyHash }).whereNull('revoked_at');
}

/** Revokes the key unless it already is (its first revocation time stays). */
export async function revokeApiKeyById(id: string, db?: Knex): Promise<void> {
  await ApiKey.query(db).patch({ revoked_at: new Date() }).where({ id }).whereNull('revoked_at');
}

export async function touchApiKey(id: string, at: Date, db?: Knex): Promise<void> {
  await ApiKey.query(db).patch({ last_used_at: at }).where({ id });
}
