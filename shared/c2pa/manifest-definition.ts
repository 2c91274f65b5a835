import { readFileSync } from 'node:fs';

/**
 * The c2pa-rs ManifestDefinition (JSON) for one signing request.
 *
 * Checked against c2pa-rs 0.91.3 (through @contentauth/c2pa-wasm 0.13.3):
 * - claims are v2 by default; `c2pa.actions.v2` is accepted and read back as is;
 * - `stds.schema-org.CreativeWork` is deprecated in c2pa-rs but still accepted and kept in v2 claims (as a
 *   gathered JSON assertion, no validation warning), so it carries the creator as `author: [Person]`, and the
 *   publisher, copyrightHolder and copyrightNotice when given;
 * - `cawg.training-mining` (AI training and data mining choices) is kept as a plain JSON assertion (see
 *   TRAINING_MINING_LABEL);
 * - the WASM build cannot make thumbnails (no `add_thumbnails` feature: `builder.thumbnail.enabled` does
 *   nothing), so the definition names a thumbnail resource that signAsset makes itself (thumbnail.ts);
 * - `c2pa.created` must have a digitalSourceType or c2pa-rs refuses to sign (verify-after-sign fails);
 * - when the source already carries a manifest, a new `c2pa.created` manifest silently replaces the old
 *   store. So those sources get `c2pa.opened` referencing the source as parentOf ingredient; signAsset adds
 *   that ingredient from the source bytes (c2pa-wasm `addIngredientFromBlob`), which keeps the old manifest.
 */

export const SERVICE_NAME = 'media-signing-service';
/** The service's package version, for claim_generator_info. */
export const SERVICE_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** Label of the parent ingredient; the c2pa.opened action refers to it through `ingredientIds`. */
export const PARENT_INGREDIENT_ID = 'source';

export const IPTC_DIGITAL_SOURCE_TYPE_PREFIX = 'http://cv.iptc.org/newscodes/digitalsourcetype/';
/** IPTC digital source type codes c2pa-rs 0.91 knows (its DigitalSourceType enum). */
export const IPTC_DIGITAL_SOURCE_TYPES = [
  'digitalCapture', 'computationalCapture', 'negativeFilm', 'positiveFilm', 'print', 'minorHumanEdits',
  'humanEdits', 'compositeCapture', 'algorithmicallyEnhanced', 'dataDrivenMedia', 'digitalArt', 'digitalCreation',
  'virtualRecording', 'composite', 'compositeSynthetic', 'compositeWithTrainedAlgorithmicMedia',
  'trainedAlgorithmicMedia', 'algorithmicMedia', 'screenCapture', 'softwareImage',
] as const;
export const DEFAULT_DIGITAL_SOURCE_TYPE = `${IPTC_DIGITAL_SOURCE_TYPE_PREFIX}digitalCapture`;

/** A schema.org Organization or Person (CreativeWork publisher, copyrightHolder). */
export interface Party {
  name: string;
  /** http(s) URL of the party's site. */
  url?: string;
  /** schema.org type; default Organization. */
  type?: (typeof PARTY_TYPES)[number];
}
export const PARTY_TYPES = ['Organization', 'Person'] as const;

/**
 * The training and data mining assertion (CAWG 1.x, `cawg.training-mining`): the C2PA 1.x assertion
 * `c2pa.training-mining` was dropped from C2PA 2.0 and re-published by the Creator Assertions Working Group
 * under `cawg.` labels. c2pa-rs 0.91 knows neither label: it keeps both as plain JSON assertions, Trusted,
 * without an `assertion.*` status either way, so the current standard's label is the one written.
 */
export const TRAINING_MINING_LABEL = 'cawg.training-mining';
/** The four uses the CAWG assertion defines, as its entry keys. */
export const TRAINING_MINING_USES = ['cawg.ai_inference', 'cawg.ai_generative_training', 'cawg.ai_training', 'cawg.data_mining'] as const;
export const TRAINING_MINING_CHOICES = ['allowed', 'notAllowed', 'constrained'] as const;
export interface TrainingMiningEntry {
  use: (typeof TRAINING_MINING_CHOICES)[number];
  /** Only with `constrained`: the conditions (a licence name, a policy URL, free text). */
  constraint_info?: string;
}
/** The assertion's `entries` map, written as is: at least one of the four uses. */
export type TrainingMining = Partial<Record<(typeof TRAINING_MINING_USES)[number], TrainingMiningEntry>>;

/** What a client may say about the asset (the spec's manifest object: title and creator required). */
export interface ManifestInput {
  title: string;
  creator: string;
  description?: string;
  /** An IPTC digital source type URL; default digitalCapture. Only used for c2pa.created. */
  digitalSourceType?: string;
  /** ISO 8601 date (YYYY-MM-DD) or date-time with a zone. */
  dateCreated?: string;
  /** CreativeWork publisher. */
  publisher?: Party;
  /** CreativeWork copyrightHolder. */
  copyrightHolder?: Party;
  /** CreativeWork copyrightNotice, e.g. "© 2025 Daily Planet". */
  copyrightNotice?: string;
  /** Written as the cawg.training-mining assertion. */
  trainingMining?: TrainingMining;
  /** Embed a claim thumbnail (a small JPEG of the image, made by the service). */
  thumbnail?: boolean;
}

/** A sign request's manifest: title always; creator may come from a template instead. */
export type ManifestRequest = Omit<ManifestInput, 'creator'> & { creator?: string };

/** A template's defaults: every manifest field but the per-request ones (title, dateCreated), all optional. */
export type ManifestDefaults = Partial<Omit<ManifestInput, 'title' | 'dateCreated'>>;

export const MANIFEST_LIMITS = {
  title: 256,
  creator: 256,
  description: 2000,
  digitalSourceType: 200,
  dateCreated: 40,
  partyName: 256,
  url: 2048,
  copyrightNotice: 1000,
  constraintInfo: 1000,
} as const;

export class ManifestInputError extends Error {
  constructor(readonly field: string, message: string) {
    super(`manifest.${field}: ${message}`);
    this.name = 'ManifestInputError';
  }
}

// C0/C1 controls and the Unicode line/paragraph separators. Tab and newline are allowed in multi-line fields.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/;
const CONTROL_OR_NEWLINE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function text(field: string, value: unknown, options: { max: number; multiline?: boolean }): string {
  if (value === undefined) throw new ManifestInputError(field, 'is required');
  if (typeof value !== 'string') throw new ManifestInputError(field, 'must be a string');
  const trimmed = value.normalize('NFC').trim();
  if (trimmed.length === 0) throw new ManifestInputError(field, 'must not be empty');
  if ([...trimmed].length > options.max) throw new ManifestInputError(field, `must be at most ${options.max} characters`);
  if ((options.multiline ? CONTROL : CONTROL_OR_NEWLINE).test(trimmed)) {
    throw new ManifestInputError(field, 'must not contain control characters');
  }
  return trimmed;
}

function digitalSourceType(value: unknown): string {
  const url = text('digitalSourceType', value, { max: MANIFEST_LIMITS.digitalSourceType });
  const code = url.startsWith(IPTC_DIGITAL_SOURCE_TYPE_PREFIX) ? url.slice(IPTC_DIGITAL_SOURCE_TYPE_PREFIX.length) : undefined;
  if (!code || !(IPTC_DIGITAL_SOURCE_TYPES as readonly string[]).includes(code)) {
    throw new ManifestInputError(
      'digitalSourceType',
      `must be an IPTC digital source type URL, ${IPTC_DIGITAL_SOURCE_TYPE_PREFIX}<code>, e.g. ${DEFAULT_DIGITAL_SOURCE_TYPE}`,
    );
  }
  return url;
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

function isoDate(value: unknown): string {
  const s = text('dateCreated', value, { max: MANIFEST_LIMITS.dateCreated });
  const m = DATE_ONLY.exec(s) ?? DATE_TIME.exec(s);
  const invalid = () => new ManifestInputError('dateCreated', 'must be an ISO 8601 date (YYYY-MM-DD) or date-time with a zone');
  if (!m || Number.isNaN(Date.parse(s))) throw invalid();
  // Date.parse rolls 2024-02-30 over to March; a calendar date must round-trip.
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const d = new Date(Date.UTC(year, month - 1, day));
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) throw invalid();
  return s;
}

function httpUrl(field: string, value: unknown): string {
  const s = text(field, value, { max: MANIFEST_LIMITS.url });
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    throw new ManifestInputError(field, 'must be an http or https URL');
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password) {
    throw new ManifestInputError(field, 'must be an http or https URL without credentials');
  }
  return s;
}

function party(field: string, value: unknown): Party {
  if (!isObject(value)) throw new ManifestInputError(field, 'must be an object with a name (and optionally url and type)');
  for (const key of Object.keys(value)) {
    if (!['name', 'url', 'type'].includes(key)) throw new ManifestInputError(`${field}.${key}`, 'is not a supported field');
  }
  const out: Party = { name: text(`${field}.name`, value.name, { max: MANIFEST_LIMITS.partyName }) };
  if (value.url !== undefined) out.url = httpUrl(`${field}.url`, value.url);
  if (value.type !== undefined) {
    if (!(PARTY_TYPES as readonly unknown[]).includes(value.type)) throw new ManifestInputError(`${field}.type`, `must be one of ${PARTY_TYPES.join(', ')}`);
    out.type = value.type as Party['type'];
  }
  return out;
}

function trainingMining(value: unknown): TrainingMining {
  const field = 'trainingMining';
  if (!isObject(value) || Object.keys(value).length === 0) {
    throw new ManifestInputError(field, `must be an object with at least one of ${TRAINING_MINING_USES.join(', ')}`);
  }
  const out: TrainingMining = {};
  for (const [use, raw] of Object.entries(value)) {
    const at = `${field}.${use}`;
    if (!(TRAINING_MINING_USES as readonly string[]).includes(use)) {
      throw new ManifestInputError(at, `is not a supported use (one of ${TRAINING_MINING_USES.join(', ')})`);
    }
    if (!isObject(raw)) throw new ManifestInputError(at, 'must be an object with use (and constraint_info for constrained)');
    for (const key of Object.keys(raw)) {
      if (key !== 'use' && key !== 'constraint_info') throw new ManifestInputError(`${at}.${key}`, 'is not a supported field');
    }
    if (!(TRAINING_MINING_CHOICES as readonly unknown[]).includes(raw.use)) {
      throw new ManifestInputError(`${at}.use`, `must be one of ${TRAINING_MINING_CHOICES.join(', ')}`);
    }
    const entry: TrainingMiningEntry = { use: raw.use as TrainingMiningEntry['use'] };
    if (raw.constraint_info !== undefined) {
      if (entry.use !== 'constrained') throw new ManifestInputError(`${at}.constraint_info`, 'only applies when use is constrained');
      entry.constraint_info = text(`${at}.constraint_info`, raw.constraint_info, { max: MANIFEST_LIMITS.constraintInfo, multiline: true });
    }
    out[use as keyof TrainingMining] = entry;
  }
  return out;
}

function bool(field: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw new ManifestInputError(field, 'must be true or false');
  return value;
}

type ManifestField = keyof ManifestInput;

/**
 * The one set of field rules, shared by sign requests (parseManifestInput, parseManifestRequest) and manifest
 * templates (parseManifestDefaults). In this order: the first problem found is the one reported.
 */
const FIELD_RULES: { [K in ManifestField]-?: (value: unknown) => NonNullable<ManifestInput[K]> } = {
  title: (v) => text('title', v, { max: MANIFEST_LIMITS.title }),
  creator: (v) => text('creator', v, { max: MANIFEST_LIMITS.creator }),
  description: (v) => text('description', v, { max: MANIFEST_LIMITS.description, multiline: true }),
  digitalSourceType,
  dateCreated: isoDate,
  publisher: (v) => party('publisher', v),
  copyrightHolder: (v) => party('copyrightHolder', v),
  copyrightNotice: (v) => text('copyrightNotice', v, { max: MANIFEST_LIMITS.copyrightNotice, multiline: true }),
  trainingMining,
  thumbnail: (v) => bool('thumbnail', v),
};

const ALL_FIELDS = Object.keys(FIELD_RULES) as ManifestField[];
/** Given per sign request only, never by a template. */
const PER_REQUEST_FIELDS: readonly ManifestField[] = ['title', 'dateCreated'];
/** The fields a manifest template may give. */
export const TEMPLATE_FIELDS = ALL_FIELDS.filter((f) => !PER_REQUEST_FIELDS.includes(f)) as (keyof ManifestDefaults)[];

function parseFields(
  raw: unknown,
  options: { allowed: readonly ManifestField[]; required: readonly ManifestField[]; notAnObject: string; refused?: string },
): Partial<ManifestInput> {
  if (!isObject(raw)) throw new ManifestInputError('(root)', options.notAnObject);
  for (const key of Object.keys(raw)) {
    if (!(options.allowed as readonly string[]).includes(key)) {
      throw new ManifestInputError(key, Object.hasOwn(FIELD_RULES, key) && options.refused ? options.refused : 'is not a supported field');
    }
  }
  const out: Record<string, unknown> = {};
  for (const field of ALL_FIELDS) {
    if (!options.allowed.includes(field)) continue;
    if (raw[field] === undefined) {
      if (options.required.includes(field)) throw new ManifestInputError(field, 'is required');
      continue;
    }
    out[field] = FIELD_RULES[field](raw[field]);
  }
  return out as Partial<ManifestInput>;
}

/** Validates untrusted input (e.g. a request body's `manifest`) into a complete ManifestInput. */
export function parseManifestInput(raw: unknown): ManifestInput {
  return parseFields(raw, { allowed: ALL_FIELDS, required: ['title', 'creator'], notAnObject: 'must be an object with at least title and creator' }) as ManifestInput;
}

/** A sign request's manifest, which a template may complete: as parseManifestInput, but creator may be left out. */
export function parseManifestRequest(raw: unknown): ManifestRequest {
  return parseFields(raw, { allowed: ALL_FIELDS, required: ['title'], notAnObject: 'must be an object with at least title' }) as ManifestRequest;
}

/** A manifest template's defaults: the same rules as a sign request's fields, all optional, no title or dateCreated. */
export function parseManifestDefaults(raw: unknown): ManifestDefaults {
  return parseFields(raw, {
    allowed: TEMPLATE_FIELDS,
    required: [],
    notAnObject: 'must be an object (the manifest defaults)',
    refused: 'is given per sign request, not by a template',
  }) as ManifestDefaults;
}

/**
 * The manifest a job applies: the template's defaults with the request's fields over them (a field the request
 * gives replaces the template's whole value, e.g. all of publisher or trainingMining). Creator must come from
 * one of the two.
 */
export function mergeManifest(request: ManifestRequest, defaults?: ManifestDefaults): ManifestInput {
  const merged = { ...(defaults ?? {}), ...request };
  if (merged.creator === undefined) {
    throw new ManifestInputError('creator', defaults ? 'is required (the template gives no creator)' : 'is required');
  }
  return merged as ManifestInput;
}

/** The subset of c2pa-rs's ManifestDefinition this service writes. */
export interface ManifestDefinition {
  claim_generator_info: { name: string; version: string }[];
  title: string;
  format?: string;
  /** The claim thumbnail: signAsset makes the JPEG from the source and adds it as this resource. */
  thumbnail?: { format: 'image/jpeg'; identifier: string };
  assertions: { label: string; data: Record<string, unknown> }[];
}

/** Resource identifier of the claim thumbnail in the definition (c2pa-rs stores it as c2pa.thumbnail.claim). */
export const CLAIM_THUMBNAIL_ID = 'claim-thumbnail.jpg';

export interface ManifestContext {
  /** The source already carries a C2PA manifest: record c2pa.opened with it as the parent ingredient. */
  sourceHasManifest: boolean;
  /** Assertions computed from the content (the c2pa.soft-binding fingerprint), added as they are. */
  contentAssertions?: { label: string; data: Record<string, unknown> }[];
  /**
   * What the medium is, from the content: video and audio are described as schema.org VideoObject / AudioObject
   * (CreativeWork types), with their playing time (ISO 8601) where the format carries one.
   */
  medium?: { kind: 'image' | 'video' | 'audio'; duration?: string };
}

/**
 * Builds the manifest definition. Validates `input` first (it may come straight from a client).
 * The digitalSourceType only applies to c2pa.created: an opened asset inherits its origin from the parent.
 */
export function buildManifestDefinition(input: ManifestInput, context: ManifestContext): ManifestDefinition {
  const valid = parseManifestInput(input);
  const softwareAgent = { name: SERVICE_NAME, version: SERVICE_VERSION };
  const inception = context.sourceHasManifest
    ? { action: 'c2pa.opened', softwareAgent, parameters: { ingredientIds: [PARENT_INGREDIENT_ID] } }
    : { action: 'c2pa.created', softwareAgent, digitalSourceType: valid.digitalSourceType ?? DEFAULT_DIGITAL_SOURCE_TYPE };

  const kind = context.medium?.kind;
  const creativeWork: Record<string, unknown> = {
    '@context': 'https://schema.org',
    '@type': kind === 'video' ? 'VideoObject' : kind === 'audio' ? 'AudioObject' : 'CreativeWork',
    author: [{ '@type': 'Person', name: valid.creator }],
  };
  if (context.medium?.duration !== undefined) creativeWork.duration = context.medium.duration;
  if (valid.description !== undefined) creativeWork.description = valid.description;
  if (valid.dateCreated !== undefined) creativeWork.dateCreated = valid.dateCreated;
  if (valid.publisher !== undefined) creativeWork.publisher = schemaOrgParty(valid.publisher);
  if (valid.copyrightHolder !== undefined) creativeWork.copyrightHolder = schemaOrgParty(valid.copyrightHolder);
  if (valid.copyrightNotice !== undefined) creativeWork.copyrightNotice = valid.copyrightNotice;

  const assertions: ManifestDefinition['assertions'] = [
    { label: 'c2pa.actions.v2', data: { actions: [inception] } },
    { label: 'stds.schema-org.CreativeWork', data: creativeWork },
  ];
  if (valid.trainingMining !== undefined) assertions.push({ label: TRAINING_MINING_LABEL, data: { entries: valid.trainingMining } });
  assertions.push(...(context.contentAssertions ?? []));
  const definition: ManifestDefinition = {
    claim_generator_info: [{ name: SERVICE_NAME, version: SERVICE_VERSION }],
    title: valid.title,
    assertions,
  };
  if (valid.thumbnail === true) definition.thumbnail = { format: 'image/jpeg', identifier: CLAIM_THUMBNAIL_ID };
  return definition;
}

function schemaOrgParty(p: Party): Record<string, unknown> {
  return { '@type': p.type ?? 'Organization', name: p.name, ...(p.url === undefined ? {} : { url: p.url }) };
}

/** True when the definition's inception action is c2pa.opened on the parent ingredient signAsset adds. */
export function opensParentIngredient(definition: ManifestDefinition): boolean {
  return definition.assertions.some((a) => {
    if (!a.label.startsWith('c2pa.actions')) return false;
    const actions = (a.data as { actions?: { action?: string; parameters?: { ingredientIds?: unknown } }[] }).actions;
    return (actions ?? []).some(
      (act) =>
        act.action === 'c2pa.opened' &&
        Array.isArray(act.parameters?.ingredientIds) &&
        act.parameters.ingredientIds.includes(PARENT_INGREDIENT_ID),
    );
  });
}
