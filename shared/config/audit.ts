/** The audit log: its checkpoint key in the vault, its origin line and how often a checkpoint is signed. */
import { ConfigError, int, str, type Env } from './parse.js';

export interface AuditConfig {
  keyName: string;
  origin: string;
  checkpointSeconds: number;
}

export function auditSettings(env: Env, baseUrl: string): AuditConfig {
  return {
    keyName: str(env, 'AUDIT_KEY_NAME', 'audit-checkpoint'),
    origin: auditOrigin(env, baseUrl),
    checkpointSeconds: int(env, 'AUDIT_CHECKPOINT_SECONDS', 60, 1, 86_400),
  };
}

/** The audit log's checkpoint origin (AUDIT_LOG_ORIGIN): by default BASE_URL's host and path, then /audit. */
function auditOrigin(env: Env, baseUrl: string): string {
  const given = env.AUDIT_LOG_ORIGIN;
  if (given !== undefined && given !== '') {
    if (!/^[\x21-\x7e]+$/.test(given)) throw new ConfigError('AUDIT_LOG_ORIGIN', 'must be one word of printable ASCII (a checkpoint origin line), e.g. signing.example.com/audit');
    return given;
  }
  const u = new URL(baseUrl);
  return `${u.host}${u.pathname.replace(/\/$/, '')}/audit`;
}
