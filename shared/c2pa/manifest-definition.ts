import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_DIGITAL_SOURCE_TYPE, type ManifestInput, type Party } from '../domain/manifest-input.js';
import { PROJECT_ROOT } from '../paths.js';
import { parseManifestInput } from './parse-manifest.js';
import { DEFAULT_C2PA_SPEC_VERSION, type C2paSpecVersion } from './spec-version.js';

/**
 * The c2pa-rs ManifestDefinition (JSON) for one signing request.
 *
 * Checked against c2pa-rs 0.91.3 (through @contentauth/c2pa-wasm 0.13.3):
 * - claims are v2 by default; `c2pa.actions.v2` is accepted and read back as is;
 * - an assertion lands in the claim's created_assertions only when its definition says `created: true` (otherwise
 *   gathered_assertions, hash and thumbnail assertions aside); the `builder.created_assertion_labels` setting is not
 *   read from a builder's context settings in this build;
 * - `claim_generator_info[0].specVersion` is written into the claim as given (c2pa-rs never sets it itself);
 * - `c2pa.metadata` and `cawg.metadata` are kept as JSON-LD assertions as given;
 * - `cawg.training-mining` (AI training and data mining choices) is kept as a plain JSON assertion (see
 *   TRAINING_MINING_LABEL);
 * - the WASM build cannot make thumbnails (no `add_thumbnails` feature: `builder.thumbnail.enabled` does
 *   nothing), so the definition names a thumbnail resource that signAsset makes itself (thumbnail.ts);
 * - `c2pa.created` must have a digitalSourceType or c2pa-rs refuses to sign (verify-after-sign fails);
 * - when the source already carries a manifest, a new `c2pa.created` manifest silently replaces the old
 *   store. So those sources get `c2pa.opened` referencing the source as parentOf ingredient; signAsset adds
 *   that ingredient from the source bytes (c2pa-wasm `addIngredientFromBlob`), which keeps the old manifest.
 *
 * What the manifest conforms to: C2PA 2.4 by default, or 2.2 (ManifestContext.specVersion, from C2PA_SPEC_VERSION:
 * only the declared specVersion differs, see spec-version.ts), as the C2PA conformance program's asset rubrics check it
 * (test/c2pa/asset-rubrics.test.ts):
 * - the actions assertion is a created assertion (2.2 §10.2.2: a standard manifest's created assertions hold at least
 *   the hard binding and an actions assertion), with `allActionsIncluded: true`: the service's one action (created,
 *   or opened on re-signing) is all it did to the asset;
 * - the deprecated `stds.schema-org.CreativeWork` is gone (2.2 App. C.1). What a person states about the work
 *   (creator, description, publisher, copyright) is in CAWG's metadata assertion (`cawg.metadata`, a gathered
 *   assertion: the service does not vouch for it); C2PA 2.2's own `c2pa.metadata` is restricted to a list of
 *   fields (2.2 §18.14, App. B), of which the service only has the date the work was created (IPTC Date Created,
 *   `photoshop:DateCreated`), written there as a created assertion. Files signed before this change carry
 *   CreativeWork; read-asset.ts reads both.
 */

export const SERVICE_NAME = 'media-signing-service';
/** The service's package version, for claim_generator_info. */
export const SERVICE_VERSION: string = (
  JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }
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

/** C2PA 2.2's metadata assertion (only the fields its App. B allows). */
export const C2PA_METADATA_LABEL = 'c2pa.metadata';
/** CAWG's metadata assertion (CAWG metadata 1.x): any XMP / IPTC field, for what a person states about the work. */
export const CAWG_METADATA_LABEL = 'cawg.metadata';

/** JSON-LD prefixes of the metadata assertions' fields. */
const METADATA_CONTEXT = {
  dc: 'http://purl.org/dc/elements/1.1/',
  photoshop: 'http://ns.adobe.com/photoshop/1.0/',
  plus: 'http://ns.useplus.org/ldf/xmp/1.0/',
  xmpDM: 'http://ns.adobe.com/xmp/1.0/DynamicMedia/',
  xmpRights: 'http://ns.adobe.com/xap/1.0/rights/',
} as const;

/** One assertion of the definition; `created` puts it in the claim's created_assertions (see above). */
export interface AssertionDefinition {
  label: string;
  data: Record<string, unknown>;
  created?: boolean;
}

/** The subset of c2pa-rs's ManifestDefinition this service writes. */
export interface ManifestDefinition {
  claim_generator_info: { name: string; version: string; specVersion?: string }[];
  title: string;
  format?: string;
  /** The claim thumbnail: signAsset makes the JPEG from the source and adds it as this resource. */
  thumbnail?: { format: 'image/jpeg'; identifier: string };
  assertions: AssertionDefinition[];
  /** The active manifest's label, preset (urn:c2pa:<uuid>) when its URL must be known before signing (a remote manifest). */
  label?: string;
}

/** Resource identifier of the claim thumbnail in the definition (c2pa-rs stores it as c2pa.thumbnail.claim). */
export const CLAIM_THUMBNAIL_ID = 'claim-thumbnail.jpg';

export interface ManifestContext {
  /** The source already carries a C2PA manifest: record c2pa.opened with it as the parent ingredient. */
  sourceHasManifest: boolean;
  /** Assertions computed from the content (the c2pa.soft-binding fingerprint), added as they are. */
  contentAssertions?: { label: string; data: Record<string, unknown> }[];
  /** The medium, from the content: the playing time of video and audio (ISO 8601) where the format carries one. */
  medium?: { duration?: string };
  /** The C2PA specification version declared in claim_generator_info (C2PA_SPEC_VERSION); default 2.4. */
  specVersion?: C2paSpecVersion;
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

  const assertions: AssertionDefinition[] = [
    { label: 'c2pa.actions.v2', created: true, data: { actions: [inception], allActionsIncluded: true } },
  ];
  if (valid.dateCreated !== undefined) {
    assertions.push({ label: C2PA_METADATA_LABEL, created: true, data: { '@context': { photoshop: METADATA_CONTEXT.photoshop }, 'photoshop:DateCreated': valid.dateCreated } });
  }
  assertions.push({ label: CAWG_METADATA_LABEL, data: cawgMetadata(valid, context.medium) });
  if (valid.trainingMining !== undefined) assertions.push({ label: TRAINING_MINING_LABEL, data: { entries: valid.trainingMining } });
  assertions.push(...(context.contentAssertions ?? []));
  const definition: ManifestDefinition = {
    claim_generator_info: [{ name: SERVICE_NAME, version: SERVICE_VERSION, specVersion: context.specVersion ?? DEFAULT_C2PA_SPEC_VERSION }],
    title: valid.title,
    assertions,
  };
  if (valid.thumbnail === true) definition.thumbnail = { format: 'image/jpeg', identifier: CLAIM_THUMBNAIL_ID };
  return definition;
}

/**
 * The person-stated fields as XMP / IPTC properties: creator dc:creator, description dc:description, publisher
 * dc:publisher, copyright holder IPTC PLUS plus:CopyrightOwner (name and URL), copyright notice dc:rights (and
 * xmpRights:Marked), the playing time xmpDM:duration (seconds).
 */
function cawgMetadata(valid: ManifestInput, medium: ManifestContext['medium']): Record<string, unknown> {
  const data: Record<string, unknown> = { '@context': { ...METADATA_CONTEXT }, 'dc:creator': [valid.creator] };
  if (valid.description !== undefined) data['dc:description'] = valid.description;
  if (valid.publisher !== undefined) data['dc:publisher'] = [valid.publisher.name];
  if (valid.copyrightHolder !== undefined) data['plus:CopyrightOwner'] = [copyrightOwner(valid.copyrightHolder)];
  if (valid.copyrightNotice !== undefined) {
    data['dc:rights'] = valid.copyrightNotice;
    data['xmpRights:Marked'] = true;
  }
  const seconds = medium?.duration === undefined ? undefined : isoDurationSeconds(medium.duration);
  if (seconds !== undefined) data['xmpDM:duration'] = { 'xmpDM:value': String(seconds), 'xmpDM:scale': '1/1' };
  return data;
}

function copyrightOwner(p: Party): Record<string, unknown> {
  return { 'plus:CopyrightOwnerName': p.name, ...(p.url === undefined ? {} : { 'plus:CopyrightOwnerID': p.url }) };
}

/** Seconds of an ISO 8601 time duration as isoDuration writes it (PT1H2M3.5S); undefined for any other form. */
function isoDurationSeconds(iso: string): number | undefined {
  const m = /^PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?$/.exec(iso);
  if (!m || iso === 'PT') return undefined;
  return Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
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
