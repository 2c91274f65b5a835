import { isoDuration } from '../media/duration.js';
import { codesOf, type ReaderJson, type ReaderManifest } from './reader-json.js';

/** What a manifest says about the asset: title, creator, actions, ingredients and the other stated fields. */

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

export function summaryOf(manifest: ReaderManifest, json: ReaderJson, label: string): ManifestSummary {
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
        failure: [...new Set([...codesOf(i.validation_results?.activeManifest?.failure), ...codesOf(deltas?.validationDeltas?.failure)])],
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
