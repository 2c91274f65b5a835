/**
 * Each role records its settings once at start ('service.started'): an allowlist of facts that carry no secret (no
 * connection string, key, token or password; a database or vault is named by its kind only).
 */
import type { Knex } from 'knex';
import type { Config } from '../config.js';
import { recordAuditEvent } from './record.js';

export function publicSettings(config: Config): Record<string, unknown> {
  return {
    node_env: config.nodeEnv,
    base_url: config.baseUrl,
    ocsp_url: config.ocspUrl,
    crl_url: config.crlUrl,
    tsa_url: config.tsaUrl,
    sign_without_timestamp: config.signWithoutTimestamp,
    database: config.databaseUrl ? 'postgres' : 'pglite',
    vault: config.cloudVaultUrl ? 'azure' : 'local',
    storage: config.blobStorage ? 'azure-blob' : 'local',
    chain: config.chainRpcUrl ? 'rpc' : 'embedded',
    chain_id: config.chainId ?? null,
    anchor: config.anchor,
    audit: config.audit,
    key_names: { leaf: config.leafKeyName, sub_ca: config.subCaKeyName, root: config.rootKeyName, tsa: config.tsaKeyName },
    max_upload_bytes: config.maxUploadBytes,
    worker_concurrency: config.workerConcurrency,
  };
}

export async function recordStartup(knex: Knex, roles: string[], config: Config): Promise<void> {
  const settings = publicSettings(config);
  await recordAuditEvent(knex, { action: 'service.started', actor: { type: 'service', role: roles.join('+') }, orgId: null, target: null, details: { roles, settings } });
}
