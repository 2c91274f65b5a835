import { ManifestInputError, parseManifestDefaults, parseManifestRequest } from '../../shared/c2pa/parse-manifest.js';
import {
  DEFAULT_DIGITAL_SOURCE_TYPE,
  IPTC_DIGITAL_SOURCE_TYPE_PREFIX,
  MANIFEST_LIMITS,
  PARTY_TYPES,
  TRAINING_MINING_CHOICES,
  TRAINING_MINING_USES,
} from '../../shared/domain/manifest-input.js';
import { refuse } from '../validation.js';
import { z } from './zod.js';

/**
 * The manifest fields of sign requests and templates. The field rules (trimming, code-point lengths, control
 * characters, dates, URLs) are shared/c2pa/manifest-definition.ts's, which the worker applies too: each schema here
 * runs them first and checks their result against the described shape. Lengths are counted in code points there, so
 * the shape states them (maxLength) rather than counting UTF-16 units again.
 */

const text = (max: number, description: string) => z.string().openapi({ maxLength: max, description });

const Party = z
  .object({
    name: text(MANIFEST_LIMITS.partyName, 'the name'),
    url: z.string().optional().openapi({ format: 'uri', maxLength: MANIFEST_LIMITS.url, description: 'http or https' }),
    type: z.enum(PARTY_TYPES).optional().openapi({ default: 'Organization' }),
  })
  .strict()
  .openapi('Party', { description: 'a party: its name is written (dc:publisher, or plus:CopyrightOwner with the url); type and a publisher url are accepted but not written' });

export const TrainingMiningEntry = z
  .object({
    use: z.enum(TRAINING_MINING_CHOICES),
    constraint_info: text(MANIFEST_LIMITS.constraintInfo, 'only with use constrained: the conditions (a licence, a policy URL, free text)').optional(),
  })
  .strict()
  .openapi('TrainingMiningEntry');

const TrainingMining = z
  .object(Object.fromEntries(TRAINING_MINING_USES.map((use) => [use, TrainingMiningEntry.optional()])) as Record<(typeof TRAINING_MINING_USES)[number], z.ZodOptional<typeof TrainingMiningEntry>>)
  .strict()
  .openapi('TrainingMining', {
    minProperties: 1,
    description:
      'AI training and data mining choices, written as the entries of the CAWG training and data mining assertion (cawg.training-mining). A use left out is not stated; consumers treat constrained as notAllowed unless they obtain permission.',
  });

const CREATOR = 'the author, written as dc:creator in the cawg.metadata assertion';

/** The fields a template may give (ManifestDefaults), also the sign request's besides title and dateCreated. */
const defaultFields = {
  creator: text(MANIFEST_LIMITS.creator, CREATOR).optional(),
  description: text(MANIFEST_LIMITS.description, 'caption or description (dc:description in cawg.metadata)').optional(),
  digitalSourceType: z
    .string()
    .optional()
    .openapi({
      description: `IPTC digital source type URL (${IPTC_DIGITAL_SOURCE_TYPE_PREFIX}<code>) for the c2pa.created action; default ${DEFAULT_DIGITAL_SOURCE_TYPE}. Ignored when the upload already carries a manifest (then c2pa.opened with it as parent ingredient).`,
    }),
  publisher: Party.optional().openapi({ description: 'the publisher (dc:publisher in cawg.metadata)' }),
  copyrightHolder: Party.optional().openapi({ description: 'the copyright holder (plus:CopyrightOwner in cawg.metadata)' }),
  copyrightNotice: text(MANIFEST_LIMITS.copyrightNotice, 'copyright notice (dc:rights in cawg.metadata), e.g. "© 2025 Daily Planet"').optional(),
  trainingMining: TrainingMining.optional(),
  thumbnail: z
    .boolean()
    .optional()
    .openapi({
      description:
        'embed a claim thumbnail (c2pa.thumbnail.claim): a JPEG at most 512 px on its long side made by the service, of an image, of a frame of a video (taken by ffmpeg where the worker has it), of a PDF\'s first page (rendered by pdftoppm where the worker has it) or of an EPUB\'s cover image. Costs CPU per file (about 25 ms for a 12 MP JPEG, 0.2-0.5 s for a 1080p video); images over 40 megapixels, audio, Office and OpenDocument files, EPUBs without a cover, video without ffmpeg and PDFs without pdftoppm are signed without one.',
    }),
};

const perRequestFields = {
  title: text(MANIFEST_LIMITS.title, "the work's title (dc:title of the manifest)"),
  dateCreated: z.string().optional().openapi({ maxLength: MANIFEST_LIMITS.dateCreated, description: 'ISO 8601 date (YYYY-MM-DD) or date-time with a zone (photoshop:DateCreated in c2pa.metadata)' }),
};

export const ManifestDefaults = z
  .object(defaultFields)
  .strict()
  .openapi('ManifestDefaults', {
    description: "A manifest template's defaults: the sign request's manifest fields, with the same rules, except title and dateCreated (given per request). All optional.",
  });

/** The manifest a job applies: complete (title and creator). */
export const ManifestInput = z
  .object({ ...perRequestFields, ...defaultFields, creator: text(MANIFEST_LIMITS.creator, CREATOR) })
  .strict()
  .openapi('ManifestInput', { description: "A complete manifest: a job's, with its template's defaults merged under the request's fields." });

const ManifestRequest = z
  .object({
    ...perRequestFields,
    title: text(MANIFEST_LIMITS.title, "the work's title (dc:title of the manifest). Required, except for a document (PDF, EPUB, Office, OpenDocument): left out, it is the document's own title (the upload's document_title, from its metadata), else the upload's file name").optional(),
    ...defaultFields,
  })
  .strict()
  .openapi('ManifestRequest', {
    description: "The manifest of a sign request: title is required (a document's may be left out: its own title, else its file name), and creator unless the template (template_id) gives one. A field given here replaces the template's whole value.",
  });

/** Runs the manifest field rules on a request's `manifest`; a field they refuse is an issue at that field. */
function byFieldRules<T>(parse: (raw: unknown) => T, missing: string) {
  return (value: unknown, ctx: z.RefinementCtx): T => {
    if (value === undefined) {
      refuse(ctx, missing);
      return z.NEVER;
    }
    try {
      return parse(value);
    } catch (err) {
      if (!(err instanceof ManifestInputError)) throw err;
      const prefix = `manifest.${err.field}: `;
      ctx.addIssue({ code: 'custom', message: err.message.slice(prefix.length), path: err.field.split('.'), input: value });
      return z.NEVER;
    }
  };
}

/** A sign request's `manifest`. */
export const manifestRequestField = z.preprocess(
  byFieldRules(parseManifestRequest, 'is required (an object with title, and creator unless the template gives one)'),
  ManifestRequest,
);

/** A template's `manifest` (its defaults). */
export const manifestDefaultsField = z.preprocess(byFieldRules(parseManifestDefaults, 'is required (the defaults; {} for none)'), ManifestDefaults);
