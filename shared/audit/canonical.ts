/**
 * An event's leaf: RFC 8785 (JSON Canonicalization Scheme) of the event without leaf_index and leaf_hash, hashed as
 * RFC 9162 §2.1 hashes a leaf: SHA-256(0x00 || bytes). JCS orders object keys by UTF-16 code units (JavaScript's
 * default sort) and writes numbers and strings as ECMAScript's JSON.stringify does, so for the JSON values events
 * hold (no NaN or Infinity) this short serialiser is JCS.
 */
import { createHash } from 'node:crypto';
import type { AuditJson } from './vocabulary.js';

export function canonicalJson(value: AuditJson): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new Error('canonical JSON has no NaN or Infinity');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).filter((k) => value[k] !== undefined).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k]!)}`).join(',')}}`;
}

/** SHA-256(0x00 || bytes): RFC 9162's leaf hash. */
export function rfc9162LeafHash(bytes: Uint8Array | string): Buffer {
  return createHash('sha256').update(Buffer.of(0)).update(bytes).digest();
}

/** The fields an event's leaf hash covers, in the order the API lists them. */
export interface HashedAuditEvent {
  id: string;
  time: string;
  org_id: string | null;
  actor: AuditJson;
  action: string;
  target: AuditJson;
  outcome: string;
  details: AuditJson;
}

export function auditLeafHash(event: HashedAuditEvent): Buffer {
  const { id, time, org_id, actor, action, target, outcome, details } = event;
  return rfc9162LeafHash(canonicalJson({ id, time, org_id, actor, action, target, outcome, details }));
}
