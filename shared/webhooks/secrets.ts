/**
 * Endpoint secrets in the Standard Webhooks form (`whsec_` + base64 of 32 random bytes) and their storage: deliveries
 * must sign with them, so they are kept usable (not hashed), encrypted at rest with AES-256-GCM under the webhook key
 * (WEBHOOK_SECRET_KEY, or one derived from JWT_SECRET when that is unset).
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

export function generateWebhookSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

/** The 32-byte key that encrypts endpoint secrets: the operator's own, or derived from the JWT secret. */
export function webhookKey(config: { webhooks: { secretKey: Buffer | undefined }; jwtSecret: string }): Buffer {
  if (config.webhooks.secretKey) return config.webhooks.secretKey;
  return Buffer.from(hkdfSync('sha256', config.jwtSecret, 'mss-webhook-secrets', 'endpoint secrets v1', 32));
}

/** `v1.<iv>.<tag>.<ciphertext>`, base64url parts. */
export function encryptSecret(key: Buffer, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
}

export function decryptSecret(key: Buffer, stored: string): string {
  const [version, iv, tag, ct] = stored.split('.');
  if (version !== 'v1' || !iv || !tag || ct === undefined) throw new Error('not an encrypted webhook secret');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
}

/** The Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `${id}.${timestamp}.${body}` under the decoded secret. */
export function signatureOf(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}
