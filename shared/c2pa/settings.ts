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

/** Beyond the anchors: end-entity certificates trusted one by one, and the accepted EKU OIDs (the interim list's). */
export interface ExtraTrust {
  allowedListPem?: string;
  trustConfig?: string;
}

function trustSettingsObject(anchors: string | readonly string[], extra: ExtraTrust = {}): { trust?: object; verify: Record<string, boolean> } {
  return {
    trust: {
      trust_anchors: anchorsPem(anchors),
      ...(extra.allowedListPem ? { allowed_list: extra.allowedListPem } : {}),
      ...(extra.trustConfig ? { trust_config: extra.trustConfig } : {}),
    },
    verify: { ...NO_NETWORK, verify_after_reading: true, verify_trust: true, verify_timestamp_trust: true },
  };
}

/** Full validation, including the signer's and the TSA's chains, against these anchors (and allowed list) only. */
export function trustSettings(anchors: string | readonly string[], extra?: ExtraTrust): string {
  return JSON.stringify(trustSettingsObject(anchors, extra));
}

/**
 * A signing builder's settings: the anchors a parent ingredient is judged by (when given), and whether c2pa-rs reads
 * the signed file back and validates it before returning it (verify_after_sign, on by default). Undefined: c2pa-rs's
 * defaults.
 */
export function signingSettings(options: { trustAnchorsPem?: string | readonly string[]; verifyAfterSign?: boolean }): string | undefined {
  const verifyAfterSign = options.verifyAfterSign ?? true;
  if (options.trustAnchorsPem === undefined && verifyAfterSign) return undefined;
  const settings = options.trustAnchorsPem === undefined ? { verify: { ...NO_NETWORK } } : trustSettingsObject(options.trustAnchorsPem);
  if (!verifyAfterSign) settings.verify = { ...settings.verify, verify_after_sign: false };
  return JSON.stringify(settings);
}

/** Structure only: is there a manifest store? No validation (about 1-2 ms instead of 30+). */
export function structureOnlySettings(): string {
  return JSON.stringify({ verify: { ...NO_NETWORK, verify_after_reading: false } });
}
