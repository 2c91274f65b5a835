/** An organisation's API keys: created (the raw key shown once), listed without secrets, revoked. */
import { generateApiKey } from '../../shared/api-keys.js';
import type { Knex } from '../../shared/db/knex.js';
import { findOrgApiKey, insertApiKey, listOrgApiKeys, revokeApiKeyById, type ApiKeyView } from '../../shared/db/repositories/api-keys.js';
import { recordAuditEvent } from '../../shared/audit/record.js';
import type { AuditActor } from '../../shared/audit/vocabulary.js';
import { actorOf } from '../audit-actor.js';
import { findOrgUser } from '../../shared/db/repositories/users.js';
import type { Principal } from '../auth/principal.js';
import { notFound } from '../errors.js';

/** A new key of the caller's organisation; `key` (the raw key) is in this answer only, only its hash is stored. */
export async function createApiKey(knex: Knex, principal: Principal, name: string, userId?: string): Promise<ApiKeyView & { key: string }> {
  // Bound to a person of the organisation only: another organisation's user is not found.
  if (userId !== undefined && !(await findOrgUser(principal.orgId, userId, knex))) throw notFound('user');
  const generated = generateApiKey();
  const row = await knex.transaction(async (trx) => {
    const inserted = await insertApiKey(
      { org_id: principal.orgId, name, prefix: generated.prefix, key_hash: generated.hash, created_by: principal.kind === 'user' ? principal.userId : null, user_id: userId ?? null },
      trx,
    );
    await recordAuditEvent(trx, { action: 'api_key.created', actor: actorOf(principal), orgId: principal.orgId, target: { type: 'api_key', id: inserted.id }, details: { name, prefix: generated.prefix, ...(userId !== undefined ? { user_id: userId } : {}) } });
    return inserted;
  });
  return { ...row.toPublic(), key: generated.key };
}

/** The organisation's keys, revoked ones included, newest first. */
export async function listApiKeys(knex: Knex, orgId: string): Promise<ApiKeyView[]> {
  return (await listOrgApiKeys(orgId, knex)).map((k) => k.toPublic());
}

/** Revokes one of the organisation's keys (it stops working at once); revoking a revoked key changes nothing. */
export async function revokeApiKey(knex: Knex, orgId: string, keyId: string, actor: AuditActor): Promise<void> {
  const key = await findOrgApiKey(orgId, keyId, knex);
  if (!key) throw notFound('API key');
  if (key.revoked_at) return;
  await knex.transaction(async (trx) => {
    await revokeApiKeyById(key.id, trx);
    await recordAuditEvent(trx, { action: 'api_key.revoked', actor, orgId, target: { type: 'api_key', id: key.id }, details: { name: key.name, prefix: key.prefix } });
  });
}
