import { failuresOf, type FailureDetail } from './failures.js';
import { identitiesOf, type IdentityView } from './identities.js';
import { summaryOf, type ManifestSummary } from './manifest-summary.js';
import { statusOf, type ReaderJson, type StatusLists } from './reader-json.js';
import { isRefused, type Reader, type Refused } from './reader-open.js';
import { signerOf, type SignerInfo } from './signer-info.js';
import { timestampOf, type TimestampInfo } from './signature-timestamp.js';
import type { StapledOcsp } from './stapled-ocsp.js';

/** The verification report of a file: c2pa-rs's verdict, what the manifest says, who signed it, and why. */

/** c2pa-rs's validation_state, or 'none' when the file carries no manifest at all. */
export type ValidationState = 'Trusted' | 'Valid' | 'Invalid' | 'none';

export interface VerificationReport {
  validation_state: ValidationState;
  /** Label (URN) of the active manifest. */
  active_manifest: string | null;
  manifest: ManifestSummary | null;
  signer: SignerInfo | null;
  /** c2pa-rs validation status codes of the active manifest, e.g. "assertion.dataHash.mismatch". */
  status: StatusLists;
  /**
   * The RFC 3161 timestamp of the signature (sigTst2) as c2pa-rs judged it; null when the signature has none.
   * `time` is the TSA's genTime (signature_info.time). With a validated, trusted timestamp, c2pa-rs judges the
   * signing certificate at that time, so the file stays Trusted after the certificate expires.
   */
  timestamp: TimestampInfo | null;
  /**
   * The OCSP answer stapled in the signature (rVals), read from the file: null when it carries none, or before the
   * verify task reads it (stapled-ocsp.ts).
   */
  ocsp: StapledOcsp | null;
  /**
   * Every failure code with where it comes from: the active manifest, or an ingredient (whose failure can make the
   * file Invalid while the active manifest's own codes show nothing but the signer's trust).
   */
  failures: FailureDetail[];
  /** Why the file has its state, in one line (the failures that decide it, with where they sit). */
  summary: string;
  /** Where the manifest was read from: embedded in the file, a sidecar store sent with it, or the URL the file names. */
  manifest_source: ManifestSource | null;
  /** The people (CAWG identity assertions) the active manifest names, each with c2pa-rs's verdict (identities.ts). */
  identities: IdentityView[];
}

export interface ManifestSource {
  kind: 'embedded' | 'sidecar' | 'remote';
  /** The remote manifest's URL (kind remote). */
  url: string | null;
  /** Whether the asset itself was there to check the manifest's hard binding (a sidecar sent alone: false). */
  asset_checked: boolean;
  /** Why a remote manifest could not be fetched (not fetched: REMOTE_MANIFESTS=off, refused or failed). */
  error?: string;
}

const where = (f: FailureDetail) => (f.in === 'ingredient' ? `in ingredient ${f.ingredient ? `"${f.ingredient}"` : '(unnamed)'}` : 'in the manifest');

/**
 * Why the report has its state, in one line. An Invalid file names every failure that decides it (all but the
 * signer's trust), with where it sits, so a defect in an ingredient is said at the top.
 */
export function summaryLine(state: ValidationState, failures: readonly FailureDetail[], source?: ManifestSource | null): string {
  if (state === 'none') return 'No C2PA manifest in the file.';
  const deciding = failures.filter((f) => f.code !== 'signingCredential.untrusted');
  const detached = source && !source.asset_checked ? ' (a manifest store alone: its binding to an asset was not checked)' : '';
  if (state === 'Invalid') {
    const listed = (deciding.length ? deciding : failures).map((f) => `${f.code} ${where(f)}`);
    return `Invalid${detached}: ${listed.length ? [...new Set(listed)].join('; ') : 'c2pa-rs could not validate the manifest'}.`;
  }
  if (state === 'Valid') {
    const untrusted = failures.some((f) => f.code === 'signingCredential.untrusted');
    return `Valid${detached}: the manifest is intact${untrusted ? ', but its signer chains to no trust anchor in use (signingCredential.untrusted)' : ''}.`;
  }
  return `Trusted${detached}: the manifest is intact and its signer chains to a trust anchor in use.`;
}

/** The report for a file with no manifest (undefined) or one c2pa-rs refused with a status code. */
function emptyReport(refused?: Refused['refused']): VerificationReport {
  const failures: FailureDetail[] = refused ? [{ code: refused.code, explanation: refused.explanation, in: 'manifest', ingredient: null, url: null }] : [];
  const state = refused ? 'Invalid' : 'none';
  return {
    validation_state: state,
    active_manifest: null,
    manifest: null,
    signer: null,
    status: { success: [], informational: [], failure: refused ? [refused.code] : [] },
    timestamp: null,
    ocsp: null,
    failures,
    summary: summaryLine(state, failures),
    manifest_source: refused ? { kind: 'embedded', url: null, asset_checked: true } : null,
    identities: [],
  };
}

/** The verdict on a remote manifest that was not fetched (c2pa-rs names it manifest.inaccessible). */
export function inaccessibleReport(url: string, error: string): VerificationReport {
  const explanation = `the remote manifest at ${url} was not fetched: ${error}`;
  const failures: FailureDetail[] = [{ code: 'manifest.inaccessible', explanation, in: 'manifest', ingredient: null, url }];
  const source: ManifestSource = { kind: 'remote', url, asset_checked: false, error };
  return { ...emptyReport(), validation_state: 'Invalid', status: { success: [], informational: [], failure: ['manifest.inaccessible'] }, failures, summary: summaryLine('Invalid', failures, source), manifest_source: source };
}

/** The report of an opened reader (which it frees), under the source the manifest was read from. */
export function reportOf(opened: Reader | Refused | undefined, source: ManifestSource = { kind: 'embedded', url: null, asset_checked: true }): VerificationReport {
  if (!opened) return emptyReport();
  if (isRefused(opened)) return emptyReport(opened.refused);
  const reader = opened;
  try {
    const json = JSON.parse(reader.json()) as ReaderJson;
    const label = json.active_manifest ?? reader.activeLabel() ?? null;
    const manifest = label ? json.manifests?.[label] : undefined;
    const status = statusOf(json);
    // A store c2pa-rs could parse but not judge is not trustworthy.
    const state = json.validation_state ?? 'Invalid';
    const failures = failuresOf(json, label, manifest);
    return {
      validation_state: state,
      active_manifest: label,
      manifest: manifest && label ? summaryOf(manifest, json, label) : null,
      signer: label && manifest ? signerOf(reader, label, manifest) : null,
      status,
      timestamp: timestampOf(manifest, status),
      ocsp: null,
      failures,
      summary: summaryLine(state, failures, source),
      manifest_source: source,
      identities: identitiesOf(json, manifest),
    };
  } finally {
    reader.free();
  }
}

const VOUCHED_FOR_TIMESTAMPS_ONLY = 'the signing certificate chains only to an anchor for timestamps (a TSA list), which does not vouch for claim signers';

/**
 * The report of a signer c2pa-rs trusted that no claim-signer list vouches for: only an anchor for timestamps did
 * (c2pa-rs 0.91 takes an anchor of any kind for a claim signer). signingCredential.untrusted, as c2pa-rs says it of a
 * signer it cannot chain: a Trusted file becomes Valid, an Invalid one stays Invalid.
 */
export function withSignerVouchedForTimestampsOnly(report: VerificationReport): VerificationReport {
  const explanation = VOUCHED_FOR_TIMESTAMPS_ONLY;
  const status = {
    ...report.status,
    success: report.status.success.filter((c) => c !== 'signingCredential.trusted'),
    failure: [...report.status.failure.filter((c) => c !== 'signingCredential.untrusted'), 'signingCredential.untrusted'],
  };
  const failures: FailureDetail[] = [
    ...report.failures.filter((f) => !(f.in === 'manifest' && f.code === 'signingCredential.untrusted')),
    { code: 'signingCredential.untrusted', explanation, in: 'manifest', ingredient: null, url: report.active_manifest ? `self#jumbf=/c2pa/${report.active_manifest}/c2pa.signature` : null },
  ];
  const state = report.validation_state === 'Trusted' ? 'Valid' : report.validation_state;
  return { ...report, validation_state: state, status, failures, summary: summaryLine(state, failures, report.manifest_source) };
}
