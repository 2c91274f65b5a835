/**
 * Recovery by fingerprint (Durable Content Credentials): for a file without an embedded manifest, the manifests of
 * signed files whose ISCC Image-Code is within the match distance of the file's, nearest first. They are recovered
 * by fingerprint, not bound to the bytes sent: the answer says so in words, and a client must not show them as the
 * file's own credentials.
 */
import type { Knex } from 'knex';
import type { Config } from '../../shared/config.js';
import { anchorViewsForFiles, type AnchorView } from '../../shared/anchoring/views.js';
import { manifestStoresOfFiles, type StoredManifestOfFile } from '../../shared/db/repositories/sign-jobs.js';
import type { ManifestSummary } from '../../shared/c2pa/manifest-summary.js';
import type { SignerInfo } from '../../shared/c2pa/signer-info.js';
import type { VerificationReport } from '../../shared/c2pa/verification-report.js';
import { findNearCodes, findNearCodesInOrg, type SoftBindingMatch } from '../../shared/softbinding/code-index.js';
import { hashToInt64, type ImageCode } from '../../shared/softbinding/iscc-codec.js';
import type { TrustConfig } from '../../shared/trust/store.js';
import { revocationOf, type RevocationView } from './verification.js';
import { signerTrust, trustInUse, type SignerTrust } from './verification-trust.js';
import type { VerifyPool } from './verify-pool.js';

/**
 * Largest Hamming distance (of 64 bits) counted as the same picture. Measured on 37 real photographs
 * (bench/softbinding): every re-encode (q60-90), resize (50%, 25%), metadata strip and PNG-to-JPEG copy within 4,
 * crops of 5% of the area within 8, crops of 2.5% per side within 16 (94.6% within 12); distinct photos at 20 or
 * more. 12 keeps a margin of 8 to the nearest distinct pair.
 */
export const MATCH_MAX_DISTANCE = 12;
export const RECOVERY_NOTE = 'recovered by fingerprint, not bound to these bytes: a similar image was signed with this manifest';

export interface RecoveredCandidate {
  manifest_id: string;
  manifest_url: string;
  thumbnail_url: string;
  recovered_by: 'fingerprint';
  bound_to_file: false;
  note: string;
  /** Hamming distance between the ISCC Image-Codes (0: same picture as far as the fingerprint can tell). */
  distance: number;
  /** 0-100, as the Soft Binding Resolution API has it: 100 - distance * 100 / 64, rounded. */
  similarity_score: number;
  alg: 'io.iscc.v0';
  fingerprint: string;
  /** The recovered manifest, read from the repository (its signature is checked; its hard binding cannot be without the original). */
  manifest: ManifestSummary | null;
  /** Its signer, and who vouches for it (signer.trust_source, as in a verdict). */
  signer: (SignerInfo & SignerTrust) | null;
  /**
   * The stored manifest's signature judged on its own: trusted (valid, and its certificate chains to an anchor in use,
   * the same trust verify judges by), valid (intact, not trusted), or invalid. Its hard binding (the data hash of the original bytes) cannot be
   * checked without the original, so that failure is left out here; `status` keeps every code c2pa-rs gave.
   */
  signature: 'trusted' | 'valid' | 'invalid';
  status: VerificationReport['status'];
  revocation: RevocationView;
  /** SHA-256 of the signed original, and its on-chain anchor. */
  signed_sha256: string;
  anchor: AnchorView | null;
}

export function similarityScore(distance: number): number {
  return Math.max(0, Math.round(100 - (distance * 100) / 64));
}

/** Manifest stores of the matched files (discoverable ones, or also the caller's own organisation's). */
async function storesOf(knex: Knex, matches: SoftBindingMatch[], ownOrgId?: string): Promise<Map<string, StoredManifestOfFile>> {
  if (matches.length === 0) return new Map();
  const rows = await manifestStoresOfFiles(matches.map((m) => m.signedFileId), ownOrgId, knex);
  return new Map(rows.map((r) => [r.signed_file_id, r]));
}

/** Hard-binding codes a detached manifest store always fails: they judge the asset, which is not there. */
const HARD_BINDING = /^assertion\.(dataHash|bmffHash|boxesHash|collectionHash)\./;

/** A detached manifest's signature, its hard binding left out (see RecoveredCandidate.signature). */
export function signatureOf(report: VerificationReport): 'trusted' | 'valid' | 'invalid' {
  if (report.status.failure.some((code) => !HARD_BINDING.test(code))) return 'invalid';
  return report.status.success.includes('signingCredential.trusted') ? 'trusted' : 'valid';
}

export interface StoreContext {
  knex: Knex;
  verifyPool: VerifyPool;
  config: Pick<Config, 'baseUrl'> & TrustConfig;
}

/**
 * What stored manifests say, read in the verification pool, in order, judged under the same trust as verify
 * (trustInUse: with `ownOrgId`, a signed-in caller's, its organisation's anchors too), the signer's trust source
 * named: for candidates and the repository's JSON view.
 */
export async function describeStoredManifests(ctx: StoreContext, stores: Uint8Array[], options: { ownOrgId?: string | undefined; signal?: AbortSignal | undefined } = {}) {
  if (stores.length === 0) return [];
  const { store, trust } = await trustInUse(ctx.knex, ctx.config, options.ownOrgId);
  // The repository holds what the service signed: its own roots are asked first.
  const own = (c: { source: string }) => c.source === 'service_ca';
  const candidates = [...trust.candidates.filter(own), ...trust.candidates.filter((c) => !own(c))];
  const read = await ctx.verifyPool.run('read_stores', { stores, trust: trust.all, candidates }, options.signal);
  return Promise.all(
    read.map(async ({ report, trust_source }) => ({
      report,
      signer: report.signer && { ...report.signer, ...signerTrust(store, trust_source) },
      revocation: await revocationOf(ctx.knex, report.signer),
    })),
  );
}

export interface FingerprintMatch {
  match: SoftBindingMatch;
  stored: StoredManifestOfFile;
}

/**
 * The stored manifests of signed files whose fingerprint is within MATCH_MAX_DISTANCE of `code`, nearest first:
 * discoverable files of any organisation and, for a signed-in caller (`ownOrgId`), its own organisation's
 * non-discoverable ones too. Nothing is read from the stores (the repository's queries answer ids and scores).
 */
export async function findByFingerprint(knex: Knex, code: ImageCode, options: { ownOrgId?: string; limit?: number } = {}): Promise<FingerprintMatch[]> {
  const limit = options.limit ?? 10;
  const query = hashToInt64(code.hash);
  const matches = await findNearCodes(knex, query, MATCH_MAX_DISTANCE, { discoverableOnly: true, limit });
  if (options.ownOrgId) {
    const own = await findNearCodesInOrg(knex, options.ownOrgId, query, MATCH_MAX_DISTANCE, { includeNonDiscoverable: true, limit });
    const seen = new Set(matches.map((m) => m.signedFileId));
    matches.push(...own.filter((m) => !seen.has(m.signedFileId)));
    matches.sort((a, b) => a.distance - b.distance);
  }
  const kept = matches.slice(0, limit);
  const stores = await storesOf(knex, kept, options.ownOrgId);
  return kept.flatMap((match) => {
    const stored = stores.get(match.signedFileId);
    return stored ? [{ match, stored }] : [];
  });
}

/** Candidates for a file's fingerprint (see findByFingerprint), each with what its stored manifest says. */
export async function recoverByFingerprint(
  ctx: StoreContext,
  code: ImageCode,
  options: { ownOrgId?: string | undefined; limit?: number; signal?: AbortSignal | undefined } = {},
): Promise<RecoveredCandidate[]> {
  const { knex } = ctx;
  const baseUrl = ctx.config.baseUrl;
  const found = await findByFingerprint(knex, code, options);
  if (found.length === 0) return [];
  const [described, anchors] = await Promise.all([
    describeStoredManifests(ctx, found.map((f) => new Uint8Array(f.stored.store)), options),
    anchorViewsForFiles(knex, baseUrl, found.map((f) => f.match.signedFileId)),
  ]);
  return found.map(({ match, stored }, i): RecoveredCandidate => {
    const { report, signer, revocation } = described[i]!;
    const id = encodeURIComponent(stored.manifest_id);
    return {
      manifest_id: stored.manifest_id,
      manifest_url: `${baseUrl}/v1/manifests/${id}`,
      thumbnail_url: `${baseUrl}/v1/manifests/${id}/thumbnail`,
      recovered_by: 'fingerprint',
      bound_to_file: false,
      note: RECOVERY_NOTE,
      distance: match.distance,
      similarity_score: similarityScore(match.distance),
      alg: 'io.iscc.v0',
      fingerprint: match.value,
      manifest: report.manifest,
      signer,
      signature: signatureOf(report),
      status: report.status,
      revocation,
      signed_sha256: stored.sha256,
      anchor: anchors.get(match.signedFileId) ?? null,
    };
  });
}
