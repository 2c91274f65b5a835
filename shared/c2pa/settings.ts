import { C2paError } from './errors.js';

/**
 * c2pa-rs settings JSON for readers and builders (the "context" argument of c2pa-wasm).
 *
 * Server-side rules: never fetch remote manifests or OCSP responses because an uploaded file points somewhere
 * (a file must not make the service call arbitrary URLs), and trust only the anchors given, no built-in list.
 */

const NO_NETWORK = { remote_manifest_fetch: false, ocsp_fetch: false };

/** Joins the anchors into one PEM bundle; at least one certificate, or nothing could ever be Trusted. */
export function anchorsPem(anchors: string | readonly string[]): string {
  const pem = (typeof anchors === 'string' ? [anchors] : anchors).join('\n');
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new C2paError('trustAnchorsPem must hold at least one PEM certificate');
  }
  return pem;
}

/** Full validation, including the signer's and the TSA's chains, against these anchors only. */
export function trustSettings(anchors: string | readonly string[]): string {
  return JSON.stringify({
    trust: { trust_anchors: anchorsPem(anchors) },
    verify: { ...NO_NETWORK, verify_after_reading: true, verify_trust: true, verify_timestamp_trust: true },
  });
}

/** Structure only: is there a manifest store? No validation (about 1-2 ms instead of 30+). */
export function structureOnlySettings(): string {
  return JSON.stringify({ verify: { ...NO_NETWORK, verify_after_reading: false } });
}
