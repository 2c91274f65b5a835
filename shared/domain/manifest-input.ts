/**
 * The manifest a client describes an asset with (a sign request's `manifest`, a template's defaults): its fields,
 * their vocabularies and limits. Plain types and values, so that the tables storing them and every layer above
 * can share them; the rules that check them are shared/c2pa/parse-manifest.ts.
 */

export const IPTC_DIGITAL_SOURCE_TYPE_PREFIX = 'http://cv.iptc.org/newscodes/digitalsourcetype/';
/** IPTC digital source type codes c2pa-rs 0.91 knows (its DigitalSourceType enum). */
export const IPTC_DIGITAL_SOURCE_TYPES = [
  'digitalCapture', 'computationalCapture', 'negativeFilm', 'positiveFilm', 'print', 'minorHumanEdits',
  'humanEdits', 'compositeCapture', 'algorithmicallyEnhanced', 'dataDrivenMedia', 'digitalArt', 'digitalCreation',
  'virtualRecording', 'composite', 'compositeSynthetic', 'compositeWithTrainedAlgorithmicMedia',
  'trainedAlgorithmicMedia', 'algorithmicMedia', 'screenCapture', 'softwareImage',
] as const;
export const DEFAULT_DIGITAL_SOURCE_TYPE = `${IPTC_DIGITAL_SOURCE_TYPE_PREFIX}digitalCapture`;

/** A publisher or copyright holder: an organisation or a person (only the name and, for a copyright holder, the URL are written). */
export interface Party {
  name: string;
  /** http(s) URL of the party's site. */
  url?: string;
  /** schema.org type; default Organization. */
  type?: (typeof PARTY_TYPES)[number];
}
export const PARTY_TYPES = ['Organization', 'Person'] as const;

/** The four uses the CAWG training and data mining assertion (cawg.training-mining) defines, as its entry keys. */
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
  /** The publisher (dc:publisher). */
  publisher?: Party;
  /** The copyright holder (plus:CopyrightOwner). */
  copyrightHolder?: Party;
  /** The copyright notice (dc:rights), e.g. "© 2025 Daily Planet". */
  copyrightNotice?: string;
  /** Written as the cawg.training-mining assertion. */
  trainingMining?: TrainingMining;
  /** Embed a claim thumbnail (a small JPEG of the image, made by the service). */
  thumbnail?: boolean;
}

/** A sign request's manifest: creator may come from a template instead; a document's title from the document. */
export type ManifestRequest = Omit<ManifestInput, 'creator' | 'title'> & { creator?: string; title?: string };

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
