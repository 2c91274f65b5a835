import { C2paError } from './errors.js';

/**
 * c2pa-rs settings JSON for readers and builders (the "context" argument of c2pa-wasm).
 *
 * Server-side rules: never fetch remote manifests or OCSP responses because an uploaded file points somewhere
 * (a file must not make the service call arbitrary URLs), and trust only the anchors given, no built-in list.
 */

const NO_NETWORK = { remote_manifest_fetch: false, ocsp_fetch: false };

/** What a trust list vouches for, as c2pa-rs names it: claim signers (manifest), timestamps (tsa), identities (cawg). */
export type TrustKind = 'manifest' | 'tsa' | 'cawg';

/** One trust list: the CA certificates chained to and the end-entity certificates trusted one by one (PEM each). */
export interface KindTrust {
  kind: TrustKind;
  anchorsPem: readonly string[];
  allowedPem?: readonly string[];
  /** Names the list in c2pa-rs's report ("found in [uri] trust anchors", trustListUri); else it makes one up, differently on each read. */
  uri?: string;
}

/** What c2pa-rs judges a signer and its timestamp by. */
export interface ReadOptions {
  /** Anchors for claim signers and timestamps alike (a CA that issues both, such as the service's own root). */
  trustAnchorsPem?: string | readonly string[];
  /** Lists each for one kind. */
  lists?: readonly KindTrust[];
  /** Accepted EKU OIDs, one a line (the interim list's store.cfg), for every list; c2pa-rs's own default when absent. */
  trustConfig?: string;
  /**
   * Whether a timestamp counts only when its TSA chains to an anchor (default true). Off: a validated timestamp still
   * dates the signature, its TSA unjudged, so a read that asks only whether one list vouches for the claim signer
   * does not need the TSA lists (the timestamp's own trust is judged apart).
   */
  timestampTrust?: boolean;
}

const pemsOf = (pems: string | readonly string[]) => (typeof pems === 'string' ? [pems] : pems);
const hasCertificate = (pems: readonly string[] | undefined) => (pems ?? []).some((pem) => pem.includes('-----BEGIN CERTIFICATE-----'));

/**
 * c2pa-rs's trust.anchors[] entries, each with its trust_kind: c2pa-wasm 0.13.3 (c2pa-rs 0.91.3) ignores end-entity
 * certificates given as a top-level trust.allowed_list. It reads trust_config only at the top level (an entry's is
 * ignored), and it does not keep the kinds apart for claim signers: an anchor of any kind makes a claim signer trusted,
 * so the service asks each claim-signer list alone who vouches (api/media/verify-tasks.ts). At least one certificate,
 * or nothing could ever be Trusted.
 */
function trustObject(options: ReadOptions): object {
  const shared = options.trustAnchorsPem === undefined ? [] : pemsOf(options.trustAnchorsPem);
  const lists: KindTrust[] = [
    ...(shared.length ? (['manifest', 'tsa'] as const).map((kind): KindTrust => ({ kind, anchorsPem: shared })) : []),
    ...(options.lists ?? []),
  ].filter((l) => hasCertificate(l.anchorsPem) || hasCertificate(l.allowedPem));
  if (lists.length === 0) throw new C2paError('the trust settings must hold at least one PEM certificate');
  return {
    anchors: lists.map((l) => ({
      trust_kind: l.kind,
      trust_anchors: l.anchorsPem.join('\n'),
      ...(l.allowedPem?.length ? { allowed_list: l.allowedPem.join('\n') } : {}),
      ...(l.uri ? { trust_uri: l.uri } : {}),
    })),
    ...(options.trustConfig ? { trust_config: options.trustConfig } : {}),
  };
}

function trustSettingsObject(options: ReadOptions): { trust?: object; verify: Record<string, boolean> } {
  return {
    trust: trustObject(options),
    verify: { ...NO_NETWORK, verify_after_reading: true, verify_trust: true, verify_timestamp_trust: options.timestampTrust ?? true },
  };
}

/** Full validation, including the signer's and the TSA's chains, against these lists only. */
export function trustSettings(options: ReadOptions): string {
  return JSON.stringify(trustSettingsObject(options));
}

/**
 * A signing builder's settings: the anchors a parent ingredient is judged by (when given), and whether c2pa-rs reads
 * the signed file back and validates it before returning it (verify_after_sign, on by default). Undefined: c2pa-rs's
 * defaults.
 */
export function signingSettings(options: { trustAnchorsPem?: string | readonly string[]; verifyAfterSign?: boolean }): string | undefined {
  const verifyAfterSign = options.verifyAfterSign ?? true;
  if (options.trustAnchorsPem === undefined && verifyAfterSign) return undefined;
  const settings = options.trustAnchorsPem === undefined ? { verify: { ...NO_NETWORK } } : trustSettingsObject({ trustAnchorsPem: options.trustAnchorsPem });
  if (!verifyAfterSign) settings.verify = { ...settings.verify, verify_after_sign: false };
  return JSON.stringify(settings);
}

/** Structure only: is there a manifest store? No validation (about 1-2 ms instead of 30+). */
export function structureOnlySettings(): string {
  return JSON.stringify({ verify: { ...NO_NETWORK, verify_after_reading: false } });
}
