import { readFileSync } from 'node:fs';

/**
 * The c2pa-rs ManifestDefinition (JSON) for one signing request.
 *
 * Checked against c2pa-rs 0.91.3 (through @contentauth/c2pa-wasm 0.13.3):
 * - claims are v2 by default; `c2pa.actions.v2` is accepted and read back as is;
 * - `stds.schema-org.CreativeWork` is deprecated in c2pa-rs but still accepted and kept in v2 claims (as a
 *   gathered JSON assertion, no validation warning), so it carries the creator as `author: [Person]`;
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

/** What a client may say about the asset (the spec's manifest object: title and creator required). */
export interface ManifestInput {
  title: string;
  creator: string;
  description?: string;
  /** An IPTC digital source type URL; default digitalCapture. Only used for c2pa.created. */
  digitalSourceType?: string;
  /** ISO 8601 date (YYYY-MM-DD) or date-time with a zone. */
  dateCreated?: string;
}

export const MANIFEST_LIMITS = { title: 256, creator: 256, description: 2000, digitalSourceType: 200, dateCreated: 40 } as const;

export class ManifestInputError extends Error {
  constructor(readonly field: string, message: string) {
    super(`manifest.${field}: ${message}`);
    this.name = 'ManifestInputError';
  }
}

// C0/C1 controls and the Unicode line/paragraph separators. Tab and newline are allowed in description.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/;
const CONTROL_OR_NEWLINE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

function text(field: keyof typeof MANIFEST_LIMITS, value: unknown, options: { multiline?: boolean } = {}): string {
  if (value === undefined) throw new ManifestInputError(field, 'is required');
  if (typeof value !== 'string') throw new ManifestInputError(field, 'must be a string');
  const trimmed = value.normalize('NFC').trim();
  if (trimmed.length === 0) throw new ManifestInputError(field, 'must not be empty');
  const max = MANIFEST_LIMITS[field];
  if ([...trimmed].length > max) throw new ManifestInputError(field, `must be at most ${max} characters`);
  if ((options.multiline ? CONTROL : CONTROL_OR_NEWLINE).test(trimmed)) {
    throw new ManifestInputError(field, 'must not contain control characters');
  }
  return trimmed;
}

function digitalSourceType(value: unknown): string {
  const url = text('digitalSourceType', value);
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
  const s = text('dateCreated', value);
  const m = DATE_ONLY.exec(s) ?? DATE_TIME.exec(s);
  const invalid = () => new ManifestInputError('dateCreated', 'must be an ISO 8601 date (YYYY-MM-DD) or date-time with a zone');
  if (!m || Number.isNaN(Date.parse(s))) throw invalid();
  // Date.parse rolls 2024-02-30 over to March; a calendar date must round-trip.
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const d = new Date(Date.UTC(year, month - 1, day));
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) throw invalid();
  return s;
}

const INPUT_FIELDS = new Set<string>(['title', 'creator', 'description', 'digitalSourceType', 'dateCreated']);

/** Validates untrusted input (e.g. a request body's `manifest`) into a ManifestInput. */
export function parseManifestInput(raw: unknown): ManifestInput {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ManifestInputError('(root)', 'must be an object with at least title and creator');
  }
  const obj = raw as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    if (!INPUT_FIELDS.has(key)) throw new ManifestInputError(key, 'is not a supported field');
  }
  const input: ManifestInput = { title: text('title', obj.title), creator: text('creator', obj.creator) };
  if (obj.description !== undefined) input.description = text('description', obj.description, { multiline: true });
  if (obj.digitalSourceType !== undefined) input.digitalSourceType = digitalSourceType(obj.digitalSourceType);
  if (obj.dateCreated !== undefined) input.dateCreated = isoDate(obj.dateCreated);
  return input;
}

/** The subset of c2pa-rs's ManifestDefinition this service writes. */
export interface ManifestDefinition {
  claim_generator_info: { name: string; version: string }[];
  title: string;
  format?: string;
  assertions: { label: string; data: Record<string, unknown> }[];
}

export interface ManifestContext {
  /** The source already carries a C2PA manifest: record c2pa.opened with it as the parent ingredient. */
  sourceHasManifest: boolean;
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

  const creativeWork: Record<string, unknown> = {
    '@context': 'https://schema.org',
    '@type': 'CreativeWork',
    author: [{ '@type': 'Person', name: valid.creator }],
  };
  if (valid.description !== undefined) creativeWork.description = valid.description;
  if (valid.dateCreated !== undefined) creativeWork.dateCreated = valid.dateCreated;

  return {
    claim_generator_info: [{ name: SERVICE_NAME, version: SERVICE_VERSION }],
    title: valid.title,
    assertions: [
      { label: 'c2pa.actions.v2', data: { actions: [inception] } },
      { label: 'stds.schema-org.CreativeWork', data: creativeWork },
    ],
  };
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
