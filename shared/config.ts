/**
 * Everything the service reads from the environment, validated once at start-up. Each area is a module of its own
 * (shared/config/*.ts, parsing with shared/config/parse.ts); Config is their sum, composed here.
 */
import { accountSettings, type AccountSettings } from './config/accounts.js';
import { auditSettings, type AuditConfig } from './config/audit.js';
import { chainSettings, type ChainSettings } from './config/chain.js';
import { endpointSettings, type EndpointSettings } from './config/endpoints.js';
import { mediaSettings, type MediaSettings } from './config/media.js';
import { oneOf, type Env, type NodeEnv } from './config/parse.js';
import { pkiSettings, type PkiSettings } from './config/pki.js';
import { remoteManifestsSettings, type RemoteManifestsConfig } from './config/remote-manifests.js';
import { signingSettings, type SigningSettings } from './config/signing.js';
import { storageSettings, type StorageSettings } from './config/storage.js';
import { trustSettings, type TrustSettings } from './config/trust.js';
import { webhookSettings, type WebhookConfig } from './config/webhooks.js';

export type { AnchorConfig } from './config/chain.js';
export { largestUploadLimit, uploadLimitFor } from './config/media.js';
export { ConfigError } from './config/parse.js';
export type { RemoteManifestsConfig } from './config/remote-manifests.js';
export { DEFAULT_TSA_POLICY_OID } from './config/signing.js';
export { startupWarnings, type WebhookConfig } from './config/webhooks.js';

export interface Config extends EndpointSettings, StorageSettings, PkiSettings, SigningSettings, MediaSettings, ChainSettings, AccountSettings, TrustSettings {
  nodeEnv: NodeEnv;
  logLevel: string;
  /** The audit log: its checkpoint key in the vault, its origin line and how often a checkpoint is signed. */
  audit: AuditConfig;
  /** Whether verification fetches a file's remote manifest (REMOTE_MANIFESTS on|off), through the outbound guard. */
  remoteManifests: RemoteManifestsConfig;
  /** Webhooks: delivery, retries, the SSRF guard's development switch and the secrets' key. */
  webhooks: WebhookConfig;
}

export function loadConfig(env: Env = process.env): Config {
  const nodeEnv = oneOf(env, 'NODE_ENV', 'development', ['development', 'test', 'production'] as const);
  const endpoints = endpointSettings(env);
  const storage = storageSettings(env);
  return {
    nodeEnv,
    logLevel: oneOf(env, 'LOG_LEVEL', nodeEnv === 'test' ? 'warn' : 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const),
    ...endpoints,
    ...storage,
    ...pkiSettings(env),
    ...signingSettings(env, nodeEnv),
    ...mediaSettings(env),
    ...chainSettings(env, nodeEnv),
    ...accountSettings(env, nodeEnv, storage.dataDir),
    ...trustSettings(env),
    audit: auditSettings(env, endpoints.baseUrl),
    remoteManifests: remoteManifestsSettings(env, nodeEnv, endpoints.baseUrl),
    webhooks: webhookSettings(env, nodeEnv),
  };
}
