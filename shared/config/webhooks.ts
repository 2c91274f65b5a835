/** Webhooks: delivery, retries, the SSRF guard's development switch and the secrets' key. */
import { bool, ConfigError, int, optional, type Env, type NodeEnv } from './parse.js';

export interface WebhookConfig {
  /**
   * Let endpoints on private, loopback and link-local addresses, and plain http, through (WEBHOOK_ALLOW_PRIVATE;
   * development, tests; in production only with WEBHOOK_ALLOW_PRIVATE_IN_PRODUCTION, and warned about at start).
   */
  allowPrivate: boolean;
  /** Endpoints one organisation may have (MAX_WEBHOOK_ENDPOINTS): each event fans out to each, with its retries. */
  maxEndpoints: number;
  /** 32 bytes that encrypt endpoint secrets at rest (WEBHOOK_SECRET_KEY); unset: derived from JWT_SECRET. */
  secretKey: Buffer | undefined;
  /** How long the old secret still signs after a rotation (WEBHOOK_SECRET_GRACE_HOURS). */
  secretGraceHours: number;
  /** One attempt's limit: connect, send and the answer (WEBHOOK_TIMEOUT_MS). */
  timeoutMs: number;
  /** Attempts per delivery (WEBHOOK_ATTEMPTS) and the first retry delay, doubling after (WEBHOOK_BACKOFF_MS). */
  attempts: number;
  backoffMs: number;
  /** An endpoint failing every attempt for this long is disabled when a delivery fails for good (WEBHOOK_DISABLE_AFTER_HOURS). */
  disableAfterHours: number;
  /** Deliveries one worker makes at once (WEBHOOK_CONCURRENCY). */
  concurrency: number;
  /** How often the relay hands recorded deliveries to the queue (WEBHOOK_RELAY_INTERVAL_MS). */
  relayIntervalMs: number;
  /** signing_certificate.expiring is sent this many days before the end (WEBHOOK_CERT_EXPIRING_DAYS). */
  certificateExpiringDays: number;
}

export function webhookSettings(env: Env, nodeEnv: NodeEnv): WebhookConfig {
  return {
    allowPrivate: webhookAllowPrivate(env, nodeEnv),
    maxEndpoints: int(env, 'MAX_WEBHOOK_ENDPOINTS', 20, 1, 10_000),
    secretKey: webhookSecretKey(env),
    secretGraceHours: int(env, 'WEBHOOK_SECRET_GRACE_HOURS', 24, 0, 24 * 30),
    timeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    // 15 attempts from 5 s, doubling: the last retry comes about 23 hours after the first attempt.
    attempts: int(env, 'WEBHOOK_ATTEMPTS', 15, 1, 30),
    backoffMs: int(env, 'WEBHOOK_BACKOFF_MS', 5000, 0, 3600_000),
    disableAfterHours: int(env, 'WEBHOOK_DISABLE_AFTER_HOURS', 72, 0, 24 * 365),
    concurrency: int(env, 'WEBHOOK_CONCURRENCY', 8, 1, 256),
    relayIntervalMs: int(env, 'WEBHOOK_RELAY_INTERVAL_MS', 1000, 50, 600_000),
    certificateExpiringDays: int(env, 'WEBHOOK_CERT_EXPIRING_DAYS', 30, 1, 365),
  };
}

/** WEBHOOK_SECRET_KEY: 32 bytes, as 64 hex digits or base64. */
function webhookSecretKey(env: Env): Buffer | undefined {
  const raw = optional(env, 'WEBHOOK_SECRET_KEY');
  if (raw === undefined) return undefined;
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  // Never echo the value: it is a key.
  if (key.length !== 32) throw new ConfigError('WEBHOOK_SECRET_KEY', 'must be 32 bytes, as 64 hex digits or base64');
  return key;
}

/**
 * WEBHOOK_ALLOW_PRIVATE lifts the SSRF guard for webhook endpoints (private, loopback and link-local addresses, and
 * plain http): in production only when WEBHOOK_ALLOW_PRIVATE_IN_PRODUCTION=true says so as well, and then warned
 * about at every start (startupWarnings).
 */
function webhookAllowPrivate(env: Env, nodeEnv: NodeEnv): boolean {
  const allowPrivate = bool(env, 'WEBHOOK_ALLOW_PRIVATE', false);
  if (allowPrivate && nodeEnv === 'production' && !bool(env, 'WEBHOOK_ALLOW_PRIVATE_IN_PRODUCTION', false)) {
    throw new ConfigError(
      'WEBHOOK_ALLOW_PRIVATE',
      'is for tests and development: in production it lets webhook endpoints reach private, loopback and link-local addresses over plain http; set WEBHOOK_ALLOW_PRIVATE_IN_PRODUCTION=true as well if that is really meant',
    );
  }
  return allowPrivate;
}

/** What a process says at start about settings in effect that weaken it (shared/run-main.ts logs each at warn). */
export function startupWarnings(config: { nodeEnv: NodeEnv; webhooks: Pick<WebhookConfig, 'allowPrivate'> }): { variable: string; message: string }[] {
  const warnings: { variable: string; message: string }[] = [];
  if (config.nodeEnv === 'production' && config.webhooks.allowPrivate) {
    warnings.push({
      variable: 'WEBHOOK_ALLOW_PRIVATE',
      message:
        'WEBHOOK_ALLOW_PRIVATE is on in production (WEBHOOK_ALLOW_PRIVATE_IN_PRODUCTION=true): webhook endpoints may be on private, loopback and link-local addresses (the cloud metadata service, internal admin pages) and use plain http',
    });
  }
  return warnings;
}
