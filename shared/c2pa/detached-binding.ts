import { BindingLimitExceeded } from './binding-limits.js';
import { bmffHashMatches, type BmffHashAssertion } from './bmff-hash.js';
import { boxHashMatches, type BoxHashAssertion } from './box-hash.js';
import { dataHashMatches, type DataHashAssertion } from './data-hash.js';
import type { ReaderJson } from './reader-json.js';
import type { Reader } from './reader-open.js';
import { reportOf, summaryLine, type ManifestSource, type ValidationState, type VerificationReport } from './verification-report.js';

/**
 * The hard binding of a manifest read apart from its asset (a sidecar or a remote manifest), checked here against the
 * asset: c2pa-wasm cannot read a store with its asset, so its own verdict on the binding means nothing.
 */

/** A hard binding checked here against the file, with the status codes c2pa-rs gives its own verdict on it. */
interface BindingCheck {
  /** The assertion's label in the manifest, e.g. c2pa.hash.bmff.v3. */
  label: string;
  match: string;
  mismatch: string;
  /** c2pa-rs's code for an assertion it cannot use (assertion.<stem>.malformed). */
  malformed: string;
  matches: () => Promise<boolean | undefined>;
}

/**
 * A binding whose hash was already checked against the file's bytes (by the signer, before its manifest was embedded):
 * its verdict on the assertion the manifest carries (`label`, `data` as crJSON gives them), or undefined when that is
 * not the assertion it checked, which is then hashed as any other.
 */
export type CheckedBinding = (label: string, data: unknown) => boolean | undefined;

/** The check's verdict: a match, or the failure that replaces c2pa-rs's code for the binding. */
type BindingVerdict = { matches: true } | { matches: false; failure: { code: string; explanation: string } };

/**
 * The check's verdict, undefined when it cannot judge the binding. A file or an assertion past BINDING_LIMITS is not
 * read on: Invalid, with the limit as the explanation (the file's boxes: a mismatch, as a file c2pa-rs cannot walk;
 * the assertion's exclusions or entries: malformed).
 */
async function bindingVerdict(check: BindingCheck): Promise<BindingVerdict | undefined> {
  try {
    const matches = await check.matches();
    if (matches === undefined) return undefined;
    return matches ? { matches } : { matches, failure: { code: check.mismatch, explanation: `the file does not hash to the manifest's ${check.label}` } };
  } catch (err) {
    if (!(err instanceof BindingLimitExceeded)) throw err;
    return { matches: false, failure: { code: err.part === 'file' ? check.mismatch : check.malformed, explanation: `${err.message}: ${check.label} not checked` } };
  }
}

/**
 * The hard bindings checked here: the label's pattern, c2pa-rs's status code stem (assertion.<stem>.match/.mismatch)
 * and the check against the file (`version`: the BMFF hash's, from its label).
 */
const BINDINGS: { pattern: RegExp; stem: string; check: (file: string, data: unknown, claimAlg: string | undefined, version: number) => Promise<boolean | undefined> }[] = [
  { pattern: /^c2pa\.hash\.data(?:__\d+)?$/, stem: 'dataHash', check: (file, data) => dataHashMatches(file, data as DataHashAssertion) },
  { pattern: /^c2pa\.hash\.boxes(?:__\d+)?$/, stem: 'boxesHash', check: (file, data, claimAlg) => boxHashMatches(file, data as BoxHashAssertion, { claimAlg }) },
  { pattern: /^c2pa\.hash\.bmff(?:\.v(\d+))?(?:__\d+)?$/, stem: 'bmffHash', check: (file, data, claimAlg, version) => bmffHashMatches(file, data as BmffHashAssertion, { version, claimAlg }) },
];

/**
 * The active manifest's hard binding, when it is one checked here: c2pa.hash.data (data-hash.ts), c2pa.hash.bmff,
 * .v2, .v3 (bmff-hash.ts) or c2pa.hash.boxes (box-hash.ts). Undefined for any other (collections) or a crJSON
 * without one.
 */
function bindingCheckOf(reader: Reader, assetPath: string, checked?: CheckedBinding): BindingCheck | undefined {
  type CrJsonManifest = { label?: string; assertions?: Record<string, unknown>; claim?: { alg?: string }; 'claim.v2'?: { alg?: string } };
  let manifest: CrJsonManifest | undefined;
  try {
    const label = reader.activeLabel();
    manifest = (JSON.parse(reader.crJson()) as { manifests?: CrJsonManifest[] }).manifests?.find((m) => m.label === label);
  } catch {
    return undefined;
  }
  const claimAlg = (manifest?.['claim.v2'] ?? manifest?.claim)?.alg;
  for (const [label, data] of Object.entries(manifest?.assertions ?? {})) {
    for (const { pattern, stem, check } of BINDINGS) {
      const found = pattern.exec(label);
      if (!found) continue;
      const version = Number(found[1] ?? 1);
      const known = checked?.(label, data);
      const matches = () => (known === undefined ? check(assetPath, data, claimAlg, version) : Promise.resolve(known));
      return { label, match: `assertion.${stem}.match`, mismatch: `assertion.${stem}.mismatch`, malformed: `assertion.${stem}.malformed`, matches };
    }
  }
  return undefined;
}

/**
 * The report with c2pa-rs's verdict on the binding (from hashing the store itself, which means nothing) replaced by
 * the check against the file, and the state judged again without c2pa-rs's, as c2pa-rs would judge it.
 */
function withBindingVerdict(report: VerificationReport, check: BindingCheck, verdict: BindingVerdict, deltaFailures: boolean, source: ManifestSource): VerificationReport {
  const isBinding = (code: string) => code === check.match || code === check.mismatch || code === check.malformed;
  const status = {
    success: [...report.status.success.filter((c) => !isBinding(c)), ...(verdict.matches ? [check.match] : [])],
    informational: report.status.informational,
    failure: [...report.status.failure.filter((c) => !isBinding(c)), ...(verdict.matches ? [] : [verdict.failure.code])],
  };
  const failures = report.failures.filter((f) => !(f.in === 'manifest' && isBinding(f.code)));
  const url = report.active_manifest ? `self#jumbf=/c2pa/${report.active_manifest}/c2pa.assertions/${check.label}` : null;
  if (!verdict.matches) failures.push({ ...verdict.failure, in: 'manifest', ingredient: null, url });
  const checked = { ...source, asset_checked: true };
  const deciding = deltaFailures || status.failure.some((c) => c !== 'signingCredential.untrusted');
  const state: ValidationState = deciding ? 'Invalid' : status.failure.length ? 'Valid' : status.success.includes('signingCredential.trusted') ? 'Trusted' : 'Valid';
  return { ...report, validation_state: state, status, failures, summary: summaryLine(state, failures, checked), manifest_source: checked };
}

/** The report of a detached manifest's reader (which it frees), its hard binding judged against the asset at `assetPath`. */
export async function reportAgainstAsset(reader: Reader, assetPath: string, source: ManifestSource, checked?: CheckedBinding): Promise<VerificationReport> {
  const json = JSON.parse(reader.json()) as ReaderJson;
  const deltaFailures = (json.validation_results?.ingredientDeltas ?? []).some((d) => d.validationDeltas?.failure?.some((f) => f.code !== 'signingCredential.untrusted'));
  // Before reportOf, which frees the reader.
  const check = bindingCheckOf(reader, assetPath, checked);
  const report = reportOf(reader, source);
  const verdict = check && (await bindingVerdict(check));
  return check && verdict ? withBindingVerdict(report, check, verdict, deltaFailures, source) : report;
}

/**
 * The reports of a fragmented MP4's init segment manifest (its reader, which this frees), one per media segment: the
 * binding judged by `segmentMatches` for that segment, and the rendition's as a whole (matching when every segment
 * does). Without a binding checked here, every report is c2pa-rs's.
 */
export async function reportsAgainstSegments(
  reader: Reader,
  initPath: string,
  segmentPaths: readonly string[],
  segmentMatches: ((segmentPath: string) => Promise<boolean>) | undefined,
  source: ManifestSource,
): Promise<{ report: VerificationReport; segments: VerificationReport[] }> {
  const json = JSON.parse(reader.json()) as ReaderJson;
  const deltaFailures = (json.validation_results?.ingredientDeltas ?? []).some((d) => d.validationDeltas?.failure?.some((f) => f.code !== 'signingCredential.untrusted'));
  const check = bindingCheckOf(reader, initPath);
  const report = reportOf(reader, source);
  if (!check || !segmentMatches) return { report, segments: segmentPaths.map(() => report) };
  const verdicts: boolean[] = [];
  for (const segment of segmentPaths) verdicts.push(await segmentMatches(segment));
  const verdict = (matches: boolean): BindingVerdict =>
    matches ? { matches } : { matches, failure: { code: check.mismatch, explanation: `the segment is not one of the ${check.label} Merkle tree's, unchanged` } };
  return {
    report: withBindingVerdict(report, check, verdict(verdicts.every(Boolean)), deltaFailures, source),
    segments: verdicts.map((matches) => withBindingVerdict(report, check, verdict(matches), deltaFailures, source)),
  };
}
