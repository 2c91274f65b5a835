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

/** Opens a reader on bytes or a Blob (a FileBlob for a file on disk); undefined when the file has no manifest. */
async function openReader(source: Uint8Array | Blob, mimeType: SignableMimeType | typeof MANIFEST_STORE_TYPE, settings: string): Promise<Reader | undefined> {
  const { WasmReader } = c2paWasm();
  try {
    return source instanceof Blob ? await WasmReader.fromBlob(mimeType, source, settings) : await WasmReader.fromBytes(mimeType, source, settings);
  } catch (err) {
    const kind = wasmErrorKind(err);
    if (kind && NO_MANIFEST_KINDS.has(kind)) return undefined;
    throw new C2paError(`c2pa-rs could not read the ${mimeType} file: ${describeWasmError(err)}`, { cause: err });
  }
}

/** Whether the file carries a C2PA manifest store (structure only, no validation; about 1-2 ms). */
export async function hasManifest(bytes: Uint8Array, mimeType: SignableMimeType): Promise<boolean> {
  assertSignableMedia(bytes, mimeType);
  return sourceHasManifest(bytes, mimeType);
}

/** hasManifest for bytes or a Blob whose type is already checked (a BytesBlob or a FileBlob). */
export async function sourceHasManifest(source: Uint8Array | Blob, mimeType: SignableMimeType): Promise<boolean> {
  const reader = await openReader(source, mimeType, structureOnlySettings());
  if (!reader) return false;
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
  const reader = await openReader(source, mimeType, structureOnlySettings());
  if (!reader) return undefined;
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
  return reportOf(await openReader(store, MANIFEST_STORE_TYPE, trustSettings(options.trustAnchorsPem, options)));
}

/** The active manifest's claim thumbnail (its bytes and format) from a manifest store, or undefined without one. */
export async function claimThumbnailOfStore(store: Uint8Array): Promise<{ bytes: Uint8Array; format: string } | undefined> {
  const reader = await openReader(store, MANIFEST_STORE_TYPE, structureOnlySettings());
  if (!reader) return undefined;
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

function reportOf(reader: Reader | undefined): VerificationReport {
  if (!reader) {
    return { validation_state: 'none', active_manifest: null, manifest: null, signer: null, status: { success: [], informational: [], failure: [] }, timestamp: null };
  }
  try {
    const json = JSON.parse(reader.json()) as ReaderJson;
    const label = json.active_manifest ?? reader.activeLabel() ?? null;
    const manifest = label ? json.manifests?.[label] : undefined;
    const status = statusOf(json);
    return {
      // A store c2pa-rs could parse but not judge is not trustworthy.
      validation_state: json.validation_state ?? 'Invalid',
      active_manifest: label,
      manifest: manifest && label ? summaryOf(manifest, json, label) : null,
      signer: label && manifest ? signerOf(reader, label, manifest) : null,
      status,
      timestamp: timestampOf(manifest, status),
    };
  } finally {
    reader.free();
  }
}
