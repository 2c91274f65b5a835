import { BindingLimitExceeded } from './binding-limits.js';
import { bmffHashMatches, type BmffHashAssertion } from './bmff-hash.js';
import { boxHashMatches, type BoxHashAssertion } from './box-hash.js';
import { dataHashMatches, type DataHashAssertion } from './data-hash.js';
import { C2paError, describeWasmError, wasmErrorKind } from './errors.js';
import { isoDuration } from '../media/duration.js';
import { assertSignableMedia, type SignableMimeType } from './media-type.js';
import { structureOnlySettings, trustSettings } from './settings.js';
import { c2paWasm, FileBlob } from './wasm.js';
import type { TrustSource } from '../trust/store.js';

/**
 * Reads and validates a file's C2PA manifest store with c2pa-rs, judged against the given trust anchors only.
 */

/** c2pa-rs's validation_state, or 'none' when the file carries no manifest at all. */
export type ValidationState = 'Trusted' | 'Valid' | 'Invalid' | 'none';

export interface ManifestSummary {
  title: string | null;
  /**
   * Creator name(s), comma separated: dc:creator of the cawg.metadata assertion, or for files signed before the
   * service wrote it, the author of the stds.schema-org.CreativeWork assertion (as for publisher, copyright, duration).
   */
  creator: string | null;
  /** "name/version" of the first claim_generator_info entry (v2 claims have no claim_generator string). */
  claim_generator: string | null;
  /** 1 for a C2PA 1.x claim (c2pa.claim), 2 for c2pa.claim.v2; null when c2pa-rs does not say. */
  claim_version: number | null;
  /** RFC 3161 time of the signature (signature_info.time); null without a timestamp. */
  signed_at: string | null;
  /** Action names of the c2pa.actions assertion(s), e.g. ["c2pa.created"]. */
  actions: string[];
  ingredients: IngredientSummary[];
  /** Labels of the manifest's assertions as c2pa-rs lists them (hash and thumbnail assertions are not listed). */
  assertions: string[];
  /** Publisher name(s): dc:publisher (or CreativeWork publisher). */
  publisher: string | null;
  /** Copyright holder name(s): plus:CopyrightOwner (or CreativeWork copyrightHolder). */
  copyright_holder: string | null;
  /** Copyright notice: dc:rights (or CreativeWork copyrightNotice). */
  copyright_notice: string | null;
  /**
   * The AI training and data mining choices: the entries of the cawg.training-mining assertion (or of the C2PA 1.x
   * c2pa.training-mining one), e.g. {"cawg.ai_generative_training": {"use": "notAllowed"}}; null without one.
   */
  training_mining: Record<string, { use: string; constraint_info?: string }> | null;
  /** The claim thumbnail's format (e.g. image/jpeg); null without a thumbnail. */
  thumbnail: { format: string } | null;
  /** Playing time (ISO 8601, e.g. PT12.5S) for video and audio, from xmpDM:duration (or CreativeWork duration); null when none is given. */
  duration: string | null;
}

export interface IngredientSummary {
  title: string | null;
  /** "parentOf" for the asset this one was opened from. */
  relationship: string | null;
  active_manifest: string | null;
  /**
   * Failure codes c2pa-rs recorded for the ingredient's manifest when this manifest was signed, plus any found
   * now (ingredient deltas). The active manifest can be Trusted while its parent is not: show both.
   */
  failure: string[];
}

export interface SignerInfo {
  /** Distinguished names as "C=US, O=Example, CN=Leaf", in certificate order. */
  subject: string | null;
  /** Certificate serial number: lowercase hex, whole bytes, as `openssl x509 -serial` prints it. */
  serial: string | null;
  issuer: string | null;
}

export interface VerificationReport {
  validation_state: ValidationState;
  /** Label (URN) of the active manifest. */
  active_manifest: string | null;
  manifest: ManifestSummary | null;
  signer: SignerInfo | null;
  /** c2pa-rs validation status codes of the active manifest, e.g. "assertion.dataHash.mismatch". */
  status: { success: string[]; informational: string[]; failure: string[] };
  /**
   * The RFC 3161 timestamp of the signature (sigTst2) as c2pa-rs judged it; null when the signature has none.
   * `time` is the TSA's genTime (signature_info.time). With a validated, trusted timestamp, c2pa-rs judges the
   * signing certificate at that time, so the file stays Trusted after the certificate expires.
   */
  timestamp: TimestampInfo | null;
  /**
   * Every failure code with where it comes from: the active manifest, or an ingredient (whose failure can make the
   * file Invalid while the active manifest's own codes show nothing but the signer's trust).
   */
  failures: FailureDetail[];
  /** Why the file has its state, in one line (the failures that decide it, with where they sit). */
  summary: string;
  /** Where the manifest was read from: embedded in the file, a sidecar store sent with it, or the URL the file names. */
  manifest_source: ManifestSource | null;
}

export interface FailureDetail {
  code: string;
  explanation: string | null;
  /** 'manifest': the active manifest; 'ingredient': an ingredient's manifest (named by `ingredient`). */
  in: 'manifest' | 'ingredient';
  ingredient: string | null;
  /** The JUMBF URI c2pa-rs names (the assertion or signature at fault), when it names one. */
  url: string | null;
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

export interface TimestampInfo {
  time: string | null;
  /** timeStamp.validated: the token stamps this signature and its TSA signature is correct. */
  validated: boolean;
  /**
   * timeStamp.trusted as c2pa-rs reports it; the API replaces it with its own check (the TSA's chain reaches a TSA
   * anchor in use), since c2pa-rs does not check a C2PA 1.x claim's TSA at all.
   */
  trusted: boolean;
  /** Whose anchor the TSA's chain reaches, when the service checked it (see trusted); null otherwise. */
  trust_source?: TrustSource | null;
  /** Any timeStamp.* codes c2pa-rs reported. */
  codes: string[];
}

export interface ReadOptions {
  /** PEM certificates (one string with several, or a list) that c2pa-rs may chain signers and TSAs to. */
  trustAnchorsPem: string | readonly string[];
  /** End-entity certificates trusted one by one (the interim list's allowed.pem). */
  allowedListPem?: string;
  /** Accepted EKU OIDs, one a line (the interim list's store.cfg); c2pa-rs's own default when absent. */
  trustConfig?: string;
}

// --- The parts of c2pa-rs's Reader JSON and crJSON this module reads. ---
interface StatusEntry {
  code: string;
  url?: string;
  explanation?: string;
}
interface StatusCodes {
  success?: StatusEntry[];
  informational?: StatusEntry[];
  failure?: StatusEntry[];
}
interface ReaderManifest {
  title?: string;
  claim_generator?: string;
  claim_version?: number;
  claim_generator_info?: { name?: string; version?: string }[];
  assertions?: { label: string; data?: unknown }[];
  thumbnail?: { format?: string; identifier?: string };
  ingredients?: {
    title?: string;
    relationship?: string;
    active_manifest?: string;
    label?: string;
    validation_results?: { activeManifest?: StatusCodes };
    /** C2PA 1.x readers: the ingredient's failures as one list. */
    validation_status?: StatusEntry[];
  }[];
  signature_info?: { issuer?: string; common_name?: string; cert_serial_number?: string; time?: string };
}
interface ReaderJson {
  active_manifest?: string;
  manifests?: Record<string, ReaderManifest>;
  validation_results?: {
    activeManifest?: StatusCodes;
    ingredientDeltas?: { ingredientAssertionURI: string; validationDeltas?: StatusCodes }[];
  };
  /** Older form: failures only. */
  validation_status?: StatusEntry[];
  validation_state?: 'Invalid' | 'Valid' | 'Trusted';
}
interface CrJsonCertificateInfo {
  serialNumber?: string;
  issuer?: Record<string, string>;
  subject?: Record<string, string>;
}
interface CrJson {
  manifests?: { label?: string; signature?: { certificateInfo?: CrJsonCertificateInfo } }[];
}

/** c2pa-rs errors that mean "this file has no C2PA data", not "the data is broken". */
const NO_MANIFEST_KINDS = new Set(['JumbfNotFound', 'ProvenanceMissing']);

type Reader = Awaited<ReturnType<ReturnType<typeof c2paWasm>['WasmReader']['fromBytes']>>;

/** The media type of a detached C2PA manifest store (JUMBF). */
export const MANIFEST_STORE_TYPE = 'application/c2pa';

/**
 * c2pa-rs errors that are a verdict on the manifest, with the C2PA status code c2pa-rs's own validation gives it
 * (its test of no_alg.jpg expects algorithm.unsupported): the file is Invalid, not unreadable.
 */
const VERDICT_KINDS: Record<string, { code: string; explanation: string }> = {
  UnknownAlgorithm: { code: 'algorithm.unsupported', explanation: 'the signature names no algorithm, or one c2pa-rs does not support' },
  CoseSignatureAlgorithmNotSupported: { code: 'algorithm.unsupported', explanation: 'the COSE signature algorithm is not supported' },
};

/** c2pa-rs refused the manifest for a reason that is a status code (VERDICT_KINDS). */
interface Refused {
  refused: { code: string; explanation: string };
}

/** The file's manifest is not in it but at a URL it names (XMP dcterms:provenance); c2pa-rs in WASM cannot fetch it. */
export class RemoteManifestError extends C2paError {
  constructor(readonly url: string) {
    super(`the manifest is remote, at ${url}`);
    this.name = 'RemoteManifestError';
  }
}

/** Opens a reader on bytes or a Blob (a FileBlob for a file on disk); undefined when the file has no manifest. */
async function openReader(source: Uint8Array | Blob, mimeType: SignableMimeType | typeof MANIFEST_STORE_TYPE, settings: string): Promise<Reader | Refused | undefined> {
  const { WasmReader } = c2paWasm();
  try {
    return source instanceof Blob ? await WasmReader.fromBlob(mimeType, source, settings) : await WasmReader.fromBytes(mimeType, source, settings);
  } catch (err) {
    const kind = wasmErrorKind(err);
    if (kind && NO_MANIFEST_KINDS.has(kind)) return undefined;
    if (kind && VERDICT_KINDS[kind]) return { refused: VERDICT_KINDS[kind] };
    const remote = kind === 'RemoteManifestUrl' ? /RemoteManifestUrl\("(.*)"\)/s.exec(String(err))?.[1] : undefined;
    if (remote) throw new RemoteManifestError(remote);
    throw new C2paError(`c2pa-rs could not read the ${mimeType} file: ${describeWasmError(err)}`, { cause: err });
  }
}

const isRefused = (opened: Reader | Refused | undefined): opened is Refused => opened !== undefined && 'refused' in opened;

/** Whether the file carries a C2PA manifest store (structure only, no validation; about 1-2 ms). */
export async function hasManifest(bytes: Uint8Array, mimeType: SignableMimeType): Promise<boolean> {
  assertSignableMedia(bytes, mimeType);
  return sourceHasManifest(bytes, mimeType);
}

/** hasManifest for bytes or a Blob whose type is already checked (a BytesBlob or a FileBlob). */
export async function sourceHasManifest(source: Uint8Array | Blob, mimeType: SignableMimeType): Promise<boolean> {
  const reader = await openReader(source, mimeType, structureOnlySettings());
  if (!reader) return false;
  if (isRefused(reader)) return true;
  try {
    return reader.activeLabel() !== undefined;
  } finally {
    reader.free();
  }
}

/**
 * The title of the source's active manifest (structure only, no validation): a re-signed file's parent ingredient
 * keeps the parent's own title. Undefined without a manifest or a title.
 */
export async function activeManifestTitle(source: Uint8Array | Blob, mimeType: SignableMimeType): Promise<string | undefined> {
  // A parent whose manifest is refused or remote has no title to read here.
  const reader = await openReader(source, mimeType, structureOnlySettings()).catch((err: unknown) => {
    if (err instanceof RemoteManifestError) return undefined;
    throw err;
  });
  if (!reader || isRefused(reader)) return undefined;
  try {
    const json = JSON.parse(reader.json()) as ReaderJson;
    const label = json.active_manifest ?? reader.activeLabel();
    const title = label ? json.manifests?.[label]?.title : undefined;
    return typeof title === 'string' && title.length > 0 ? title : undefined;
  } finally {
    reader.free();
  }
}

const unique = (codes: (StatusEntry[] | undefined)) => [...new Set((codes ?? []).map((s) => s.code))];

function statusOf(json: ReaderJson): VerificationReport['status'] {
  const active = json.validation_results?.activeManifest;
  if (active) {
    return { success: unique(active.success), informational: unique(active.informational), failure: unique(active.failure) };
  }
  return { success: [], informational: [], failure: unique(json.validation_status) };
}

type Named = { name?: unknown } | string;
interface CreativeWork {
  author?: Named[] | Named;
  publisher?: Named[] | Named;
  copyrightHolder?: Named[] | Named;
  copyrightNotice?: unknown;
  duration?: unknown;
}

function creativeWorkOf(manifest: ReaderManifest): CreativeWork | undefined {
  return assertionData(manifest, 'stds.schema-org.CreativeWork') as CreativeWork | undefined;
}

/** schema.org Person/Organization name(s) (or plain text), comma separated. */
function namesOf(value: Named[] | Named | undefined): string | null {
  const list = value === undefined ? [] : Array.isArray(value) ? value : [value];
  const names = list.map((v) => (typeof v === 'string' ? v : v?.name)).filter((n): n is string => typeof n === 'string');
  return names.length ? names.join(', ') : null;
}

const TRAINING_MINING_LABELS = ['cawg.training-mining', 'c2pa.training-mining'];

function trainingMiningOf(manifest: ReaderManifest): ManifestSummary['training_mining'] {
  const data = manifest.assertions?.find((a) => TRAINING_MINING_LABELS.includes(a.label))?.data as { entries?: unknown } | undefined;
  // Early drafts of the CAWG assertion put the entries at the top level; read both.
  const entries = (data && typeof data.entries === 'object' && data.entries !== null ? data.entries : data) as Record<string, unknown> | undefined;
  if (!entries || typeof entries !== 'object') return null;
  const out: NonNullable<ManifestSummary['training_mining']> = {};
  for (const [key, entry] of Object.entries(entries)) {
    const e = entry as { use?: unknown; constraint_info?: unknown } | null;
    if (typeof e?.use !== 'string') continue;
    out[key] = typeof e.constraint_info === 'string' ? { use: e.use, constraint_info: e.constraint_info } : { use: e.use };
  }
  return Object.keys(out).length ? out : null;
}

function actionsOf(manifest: ReaderManifest): string[] {
  return (manifest.assertions ?? [])
    .filter((a) => a.label === 'c2pa.actions' || a.label === 'c2pa.actions.v2')
    .flatMap((a) => ((a.data as { actions?: { action?: unknown }[] } | undefined)?.actions ?? []))
    .map((act) => act.action)
    .filter((name): name is string => typeof name === 'string');
}

/** The fields the views show, from whichever assertion carries them. */
interface StatedFields {
  creator: string | null;
  publisher: string | null;
  copyright_holder: string | null;
  copyright_notice: string | null;
  duration: string | null;
}

function assertionData(manifest: ReaderManifest, label: string): Record<string, unknown> | undefined {
  const data = manifest.assertions?.find((a) => a.label === label)?.data;
  return typeof data === 'object' && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : undefined;
}

/** XMP text or a list of texts (an XMP Seq/Bag as JSON-LD), comma separated. */
function textsOf(value: unknown): string | null {
  const list = Array.isArray(value) ? value : [value];
  const texts = list.filter((v): v is string => typeof v === 'string');
  return texts.length ? texts.join(', ') : null;
}

/** xmpDM:duration {value, scale} as ISO 8601 (scale "1/1": seconds; others, e.g. "1/48000", count frames or samples). */
function xmpDuration(value: unknown): string | null {
  const d = value as { 'xmpDM:value'?: unknown; 'xmpDM:scale'?: unknown } | undefined;
  const count = Number(d?.['xmpDM:value']);
  const scale = /^(\d+)\/(\d+)$/.exec(typeof d?.['xmpDM:scale'] === 'string' ? d['xmpDM:scale'] : '1/1');
  if (!Number.isFinite(count) || count < 0 || !scale || Number(scale[2]) === 0) return null;
  return isoDuration((count * Number(scale[1])) / Number(scale[2]));
}

/** From the cawg.metadata assertion (XMP / IPTC fields, written since C2PA 2.2 conformance). */
function cawgStatedFields(data: Record<string, unknown>): StatedFields {
  const owners = Array.isArray(data['plus:CopyrightOwner']) ? data['plus:CopyrightOwner'] : [data['plus:CopyrightOwner']];
  return {
    creator: textsOf(data['dc:creator']),
    publisher: textsOf(data['dc:publisher']),
    copyright_holder: textsOf(owners.map((o) => (o as { 'plus:CopyrightOwnerName'?: unknown } | undefined)?.['plus:CopyrightOwnerName'])),
    copyright_notice: textsOf(data['dc:rights']),
    duration: data['xmpDM:duration'] === undefined ? null : xmpDuration(data['xmpDM:duration']),
  };
}

/** From the stds.schema-org.CreativeWork assertion of files signed before cawg.metadata. */
function creativeWorkStatedFields(cw: CreativeWork | undefined): StatedFields {
  return {
    creator: namesOf(cw?.author),
    publisher: namesOf(cw?.publisher),
    copyright_holder: namesOf(cw?.copyrightHolder),
    copyright_notice: typeof cw?.copyrightNotice === 'string' ? cw.copyrightNotice : null,
    duration: typeof cw?.duration === 'string' ? cw.duration : null,
  };
}

function statedFieldsOf(manifest: ReaderManifest): StatedFields {
  const cawg = assertionData(manifest, 'cawg.metadata');
  return cawg ? cawgStatedFields(cawg) : creativeWorkStatedFields(creativeWorkOf(manifest));
}

function summaryOf(manifest: ReaderManifest, json: ReaderJson, label: string): ManifestSummary {
  const info = manifest.claim_generator_info?.[0];
  const generator = info?.name ? (info.version ? `${info.name}/${info.version}` : info.name) : null;
  const stated = statedFieldsOf(manifest);
  return {
    title: manifest.title ?? null,
    creator: stated.creator,
    claim_generator: generator ?? manifest.claim_generator ?? null,
    claim_version: typeof manifest.claim_version === 'number' ? manifest.claim_version : null,
    signed_at: manifest.signature_info?.time ?? null,
    actions: actionsOf(manifest),
    ingredients: (manifest.ingredients ?? []).map((i) => {
      // Deltas name the ingredient assertion by URI: .../<active label>/c2pa.assertions/<ingredient label>.
      const uri = i.label ? `/${label}/c2pa.assertions/${i.label}` : undefined;
      const deltas = json.validation_results?.ingredientDeltas?.find((d) => uri && d.ingredientAssertionURI.endsWith(uri));
      return {
        title: i.title ?? null,
        relationship: i.relationship ?? null,
        active_manifest: i.active_manifest ?? null,
        failure: [...new Set([...unique(i.validation_results?.activeManifest?.failure), ...unique(deltas?.validationDeltas?.failure)])],
      };
    }),
    assertions: (manifest.assertions ?? []).map((a) => a.label),
    publisher: stated.publisher,
    copyright_holder: stated.copyright_holder,
    copyright_notice: stated.copyright_notice,
    training_mining: trainingMiningOf(manifest),
    thumbnail: manifest.thumbnail ? { format: manifest.thumbnail.format ?? 'unknown' } : null,
    duration: stated.duration,
  };
}

/**
 * Whole bytes, lowercase, no sign-padding 00 byte: the form `openssl x509 -serial` and node's
 * X509Certificate.serialNumber print (crJSON drops a leading zero nibble, e.g. "dd0c..." for "0DD0C...").
 */
function serialHex(hex: string): string {
  const digits = hex.toLowerCase().replace(/^0+/, '') || '0';
  return digits.length % 2 ? `0${digits}` : digits;
}

const dn = (name: Record<string, string> | undefined) =>
  name && Object.keys(name).length ? Object.entries(name).map(([k, v]) => `${k}=${v}`).join(', ') : null;

/**
 * The signing certificate's names and serial. c2pa-rs's Reader JSON only has CN, issuer O and a decimal
 * serial; its crJSON has the full subject, issuer and hex serial, so that is preferred.
 */
function signerOf(reader: Reader, label: string, manifest: ReaderManifest): SignerInfo | null {
  let cert: CrJsonCertificateInfo | undefined;
  try {
    cert = (JSON.parse(reader.crJson()) as CrJson).manifests?.find((m) => m.label === label)?.signature?.certificateInfo;
  } catch {
    cert = undefined; // crJSON is a convenience; fall back to signature_info below.
  }
  const sig = manifest.signature_info;
  const decimalSerial = sig?.cert_serial_number;
  const hex = cert?.serialNumber ?? (decimalSerial && /^\d+$/.test(decimalSerial) ? BigInt(decimalSerial).toString(16) : undefined);
  const serial = hex && /^[0-9a-fA-F]+$/.test(hex) ? serialHex(hex) : null;
  const subject = dn(cert?.subject) ?? (sig?.common_name ? `CN=${sig.common_name}` : null);
  const issuer = dn(cert?.issuer) ?? (sig?.issuer ? `O=${sig.issuer}` : null);
  if (!serial && !subject && !issuer) return null;
  return { subject, serial, issuer };
}

function timestampOf(manifest: ReaderManifest | undefined, status: VerificationReport['status']): TimestampInfo | null {
  const codes = [...status.success, ...status.informational, ...status.failure].filter((c) => c.startsWith('timeStamp.'));
  const time = manifest?.signature_info?.time ?? null;
  if (!time && codes.length === 0) return null;
  return { time, validated: status.success.includes('timeStamp.validated'), trusted: status.success.includes('timeStamp.trusted'), codes };
}

/**
 * Reads and validates the file. A file without a manifest gives validation_state 'none'; an unreadable or
 * mis-declared file throws (C2paError, UnsupportedMediaTypeError, MediaTypeMismatchError).
 */
export async function readAsset(bytes: Uint8Array, mimeType: SignableMimeType, options: ReadOptions): Promise<VerificationReport> {
  assertSignableMedia(bytes, mimeType);
  return reportOf(await openReader(bytes, mimeType, trustSettings(options.trustAnchorsPem, options)));
}

/**
 * readAsset for a file on disk, of any size: c2pa-rs reads a file over 50 MB through a FileBlob, the ranges it asks
 * for when it asks (a 256 MiB MP4: about 0.5 GiB of WASM memory, which then stays with the process: run it in a
 * process of its own). The type must already be known from the content (identifyMedia).
 */
export async function readAssetFile(filePath: string, mimeType: SignableMimeType, options: ReadOptions): Promise<VerificationReport> {
  const blob = FileBlob.open(filePath, mimeType);
  try {
    return reportOf(await openReader(blob, mimeType, trustSettings(options.trustAnchorsPem, options)));
  } finally {
    blob.close();
  }
}

/**
 * Reads a detached manifest store (application/c2pa, as the manifest repository keeps it). Without the asset its
 * hard binding cannot be checked, so the report is about the manifest and its signature: the validation state says
 * so (c2pa-rs reports the data hash as unverifiable), the summary and signer are what the asset would show.
 */
export async function readManifestStore(store: Uint8Array, options: ReadOptions): Promise<VerificationReport> {
  return reportOf(await openReader(store, MANIFEST_STORE_TYPE, trustSettings(options.trustAnchorsPem, options)), { kind: 'sidecar', url: null, asset_checked: false });
}

/**
 * c2pa-rs's crJSON report of a file, or of a detached manifest store (MANIFEST_STORE_TYPE), under these trust
 * settings, as c2pa-rs writes it. Undefined when the file has no manifest; a manifest c2pa-rs refuses (an
 * unsupported algorithm) has no crJSON either: its status code is returned instead.
 */
export async function crJsonOf(source: Uint8Array | Blob, mimeType: SignableMimeType | typeof MANIFEST_STORE_TYPE, options: ReadOptions): Promise<string | { refused: string } | undefined> {
  const opened = await openReader(source, mimeType, trustSettings(options.trustAnchorsPem, options));
  if (!opened) return undefined;
  if (isRefused(opened)) return { refused: opened.refused.code };
  try {
    return opened.crJson();
  } finally {
    opened.free();
  }
}

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
function bindingCheckOf(reader: Reader, assetPath: string): BindingCheck | undefined {
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
      return { label, match: `assertion.${stem}.match`, mismatch: `assertion.${stem}.mismatch`, malformed: `assertion.${stem}.malformed`, matches: () => check(assetPath, data, claimAlg, version) };
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

/**
 * Reads a manifest that is not in the file (a sidecar sent with it, or the remote manifest it names) against the
 * file: c2pa-rs judges the store (signature, trust, assertions, ingredients) and, since c2pa-wasm cannot read a store
 * with its asset, the hard binding is checked here against the file: c2pa.hash.data (data-hash.ts), c2pa.hash.bmff
 * (bmff-hash.ts, for MP4, MOV, M4A, HEIC, AVIF) or c2pa.hash.boxes (box-hash.ts, for JPEG and PNG). c2pa-rs's own code
 * for it, from hashing the store itself, is replaced by that check. A binding not judged here (a box hash of another
 * format or with exclusions, or a BMFF hash with Merkle trees whose file-level hash matches) is left as c2pa-rs judged
 * it against the store, so such a file stays Invalid here.
 */
export async function readDetachedManifest(store: Uint8Array, assetPath: string, options: ReadOptions, source: ManifestSource): Promise<VerificationReport> {
  const opened = await openReader(store, MANIFEST_STORE_TYPE, trustSettings(options.trustAnchorsPem, options));
  if (!opened || isRefused(opened)) return { ...reportOf(opened), manifest_source: source };
  const json = JSON.parse(opened.json()) as ReaderJson;
  const deltaFailures = (json.validation_results?.ingredientDeltas ?? []).some((d) => d.validationDeltas?.failure?.some((f) => f.code !== 'signingCredential.untrusted'));
  const check = bindingCheckOf(opened, assetPath);
  const report = reportOf(opened, source);
  const verdict = check && (await bindingVerdict(check));
  return check && verdict ? withBindingVerdict(report, check, verdict, deltaFailures, source) : report;
}

/** The active manifest's claim thumbnail (its bytes and format) from a manifest store, or undefined without one. */
export async function claimThumbnailOfStore(store: Uint8Array): Promise<{ bytes: Uint8Array; format: string } | undefined> {
  const reader = await openReader(store, MANIFEST_STORE_TYPE, structureOnlySettings());
  if (!reader || isRefused(reader)) return undefined;
  try {
    const json = JSON.parse(reader.json()) as ReaderJson;
    const label = json.active_manifest ?? reader.activeLabel();
    const thumbnail = label ? json.manifests?.[label]?.thumbnail : undefined;
    if (!thumbnail?.identifier) return undefined;
    return { bytes: reader.resourceToBytes(thumbnail.identifier), format: thumbnail.format ?? 'application/octet-stream' };
  } finally {
    reader.free();
  }
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

/** The failures of the active manifest and of its ingredients (found now, as deltas, or recorded when it was signed). */
function failuresOf(json: ReaderJson, label: string | null, manifest: ReaderManifest | undefined): FailureDetail[] {
  const out = new Map<string, FailureDetail>();
  const add = (entries: StatusEntry[] | undefined, from: Pick<FailureDetail, 'in' | 'ingredient'>) => {
    for (const e of entries ?? []) {
      const detail = { code: e.code, explanation: e.explanation ?? null, ...from, url: e.url ?? null };
      out.set(`${detail.code}|${detail.in}|${detail.ingredient}|${detail.url}`, detail);
    }
  };
  const ingredients = manifest?.ingredients ?? [];
  const titleOf = (match: (i: (typeof ingredients)[number]) => boolean) => ingredients.find(match)?.title ?? null;
  const active = json.validation_results?.activeManifest;
  if (active) add(active.failure, { in: 'manifest', ingredient: null });
  else {
    // The older form lists every failure together: the URL tells whose manifest it is about.
    for (const e of json.validation_status ?? []) {
      const ownUrl = !e.url || !label || e.url.includes(`/${label}/`) || e.url.endsWith(`/${label}`);
      add([e], ownUrl ? { in: 'manifest', ingredient: null } : { in: 'ingredient', ingredient: titleOf((i) => !!i.active_manifest && !!e.url?.includes(i.active_manifest)) });
    }
  }
  for (const delta of json.validation_results?.ingredientDeltas ?? []) {
    const title = titleOf((i) => !!i.label && !!label && delta.ingredientAssertionURI.endsWith(`/${label}/c2pa.assertions/${i.label}`));
    add(delta.validationDeltas?.failure, { in: 'ingredient', ingredient: title });
  }
  for (const i of ingredients) {
    add(i.validation_results?.activeManifest?.failure ?? i.validation_status?.filter((e) => /mismatch|invalid|untrusted|missing|revoked|malformed|unsupported|inaccessible|error/i.test(e.code)), { in: 'ingredient', ingredient: i.title ?? null });
  }
  return [...out.values()];
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
    failures,
    summary: summaryLine(state, failures),
    manifest_source: refused ? { kind: 'embedded', url: null, asset_checked: true } : null,
  };
}

/** The verdict on a remote manifest that was not fetched (c2pa-rs names it manifest.inaccessible). */
export function inaccessibleReport(url: string, error: string): VerificationReport {
  const explanation = `the remote manifest at ${url} was not fetched: ${error}`;
  const failures: FailureDetail[] = [{ code: 'manifest.inaccessible', explanation, in: 'manifest', ingredient: null, url }];
  const source: ManifestSource = { kind: 'remote', url, asset_checked: false, error };
  return { ...emptyReport(), validation_state: 'Invalid', status: { success: [], informational: [], failure: ['manifest.inaccessible'] }, failures, summary: summaryLine('Invalid', failures, source), manifest_source: source };
}

function reportOf(opened: Reader | Refused | undefined, source: ManifestSource = { kind: 'embedded', url: null, asset_checked: true }): VerificationReport {
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
      failures,
      summary: summaryLine(state, failures, source),
      manifest_source: source,
    };
  } finally {
    reader.free();
  }
}
