/**
 * The rules of a client's manifest fields (shared/domain/manifest-input.ts): validating untrusted input for a sign
 * request, a template's defaults or a complete manifest, and merging a request over a template.
 */
import {
  DEFAULT_DIGITAL_SOURCE_TYPE,
  IPTC_DIGITAL_SOURCE_TYPE_PREFIX,
  IPTC_DIGITAL_SOURCE_TYPES,
  MANIFEST_LIMITS,
  PARTY_TYPES,
  TRAINING_MINING_CHOICES,
  TRAINING_MINING_USES,
  type ManifestDefaults,
  type ManifestInput,
  type ManifestRequest,
  type Party,
  type TrainingMining,
  type TrainingMiningEntry,
} from '../domain/manifest-input.js';
import { ServiceError } from '../errors.js';

/** A manifest field breaks its rule: the message names the field. */
export class ManifestInputError extends ServiceError {
  constructor(readonly field: string, message: string) {
    super('invalid', 'validation_error', `manifest.${field}: ${message}`);
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

/**
 * A sign request's manifest, which a template may complete: as parseManifestInput, but creator may be left out, and
 * title too (a document's is its own, else its file name: requestSignature; other media's is required there).
 */
export function parseManifestRequest(raw: unknown): ManifestRequest {
  return parseFields(raw, { allowed: ALL_FIELDS, required: [], notAnObject: 'must be an object with at least title' }) as ManifestRequest;
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
  assertCreatorGiven(request, defaults);
  const merged = { ...(defaults ?? {}), ...request };
  if (merged.title === undefined) throw new ManifestInputError('title', 'is required');
  return merged as ManifestInput;
}

/** A creator is given, by the request or the template's defaults (the title may still come from the document). */
export function assertCreatorGiven(request: ManifestRequest, defaults?: ManifestDefaults): void {
  if ((request.creator ?? defaults?.creator) === undefined) {
    throw new ManifestInputError('creator', defaults ? 'is required (the template gives no creator)' : 'is required');
  }
}
