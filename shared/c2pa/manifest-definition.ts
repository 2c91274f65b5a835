import { readFileSync } from 'node:fs';
import { DEFAULT_DIGITAL_SOURCE_TYPE, type ManifestInput, type Party } from '../domain/manifest-input.js';
import { parseManifestInput } from './parse-manifest.js';

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

/**
 * The training and data mining assertion (CAWG 1.x, `cawg.training-mining`): the C2PA 1.x assertion
 * `c2pa.training-mining` was dropped from C2PA 2.0 and re-published by the Creator Assertions Working Group
 * under `cawg.` labels. c2pa-rs 0.91 knows neither label: it keeps both as plain JSON assertions, Trusted,
 * without an `assertion.*` status either way, so the current standard's label is the one written.
 */
export const TRAINING_MINING_LABEL = 'cawg.training-mining';

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
