import { createHash, randomBytes } from 'node:crypto';

/** Spec: raw keys begin with this fixed prefix. */
export const API_KEY_PREFIX = 'svc_sk_live_';
/** 32 random bytes: 43 base64url characters after the prefix. */
const API_KEY_RANDOM_BYTES = 32;
/** How much of a key listings show, enough to tell keys apart and nothing to guess with. */
const DISPLAY_PREFIX_LENGTH = API_KEY_PREFIX.length + 6;

export function generateApiKey(): { key: string; prefix: string; hash: string } {
  const key = API_KEY_PREFIX + randomBytes(API_KEY_RANDOM_BYTES).toString('base64url');
  return { key, prefix: key.slice(0, DISPLAY_PREFIX_LENGTH), hash: hashApiKey(key) };
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function looksLikeApiKey(value: string): boolean {
  return value.startsWith(API_KEY_PREFIX) && value.length === API_KEY_PREFIX.length + 43 && /^[A-Za-z0-9_-]+$/.test(value.slice(API_KEY_PREFIX.length));
}
