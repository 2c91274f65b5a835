import type { WasmBuilder as Builder } from '@contentauth/c2pa-wasm';
import { manifestStoreOf, type BmffTopLevel } from './bmff-c2pa-boxes.js';
import { storeBmffHashMatches } from './bmff-read.js';
import { BMFF_HASH_BYTES, BMFF_HASH_LABEL, bmffHashAssertion } from './bmff-stream-hash.js';
import type { BmffFileReader } from './bmff-walk.js';
import type { C2paSignerDefinition } from './cose-sign1.js';
import { PARENT_INGREDIENT_ID, type ManifestDefinition } from './manifest-definition.js';
import type { SignableMimeType } from './media-type.js';
import { MANIFEST_STORE_TYPE } from './reader-open.js';
import { withSigningBuilder, type BuilderSetup } from './sign-builder.js';
import { BytesBlob, c2paWasm } from './wasm.js';

/**
 * c2pa-wasm signs a BMFF file of any size without seeing it: it is handed a stand-in of a few kilobytes and a
 * c2pa.hash.bmff.v3 assertion computed here (bmff-stream-hash.ts), which c2pa-rs keeps as it is (it hashes a BMFF file
 * only when the claim has no BMFF hash yet). With no_embed it returns the manifest store alone, which is then written
 * into the file (bmff-write.ts).
 *
 * The stand-in is what c2pa-rs reads of a file besides its media (standInOf, bmff-c2pa-boxes.ts): its ftyp and XMP
 * boxes, and its C2PA box.
 *
 * A file with a manifest becomes the parent ingredient. c2pa-rs would make it of the whole file, validating the
 * parent's manifest and its BMFF hash; here it is made of the stand-in (the same XMP, the same manifest, hence the same
 * IDs, title, active manifest and validation results), the parent's BMFF hash is checked against the whole file here,
 * by streaming (bmff-hash.ts, c2pa-rs's check ported), and that verdict replaces the one c2pa-rs gave the stand-in.
 */

interface StatusEntry {
  code: string;
  url?: string;
  explanation?: string;
}

/** An ingredient as c2pa-rs's builder defines it (the parts read or changed here). */
interface IngredientDefinition {
  validation_status?: StatusEntry[];
  validation_results?: { activeManifest?: { success?: StatusEntry[]; failure?: StatusEntry[] } };
  manifest_data?: { format: string; identifier: string };
  [field: string]: unknown;
}

/** The parent ingredient, ready for a builder: its definition and the manifest store its manifest_data names. */
export interface ParentIngredient {
  definition: IngredientDefinition;
  store: Uint8Array;
}

/**
 * The ingredient with c2pa-rs's verdict on the stand-in's hard binding (assertion.<stem>.mismatch: the stand-in is not
 * the file) replaced by a match found against the whole file.
 */
function withHashMatch(ingredient: IngredientDefinition, stem: string): IngredientDefinition {
  const mismatch = `assertion.${stem}.mismatch`;
  const active = ingredient.validation_results?.activeManifest;
  const mismatches = (active?.failure ?? []).filter((e) => e.code === mismatch);
  if (!active || !mismatches.length) return ingredient;
  const status = (ingredient.validation_status ?? []).filter((e) => e.code !== mismatch);
  const explanation = stem === 'bmffHash' ? 'BMFF hash valid' : 'data hash valid';
  return {
    ...ingredient,
    validation_results: {
      ...ingredient.validation_results,
      activeManifest: {
        ...active,
        success: [...(active.success ?? []), ...mismatches.map((e) => ({ code: `assertion.${stem}.match`, url: e.url, explanation }))],
        failure: (active.failure ?? []).filter((e) => e.code !== mismatch),
      },
    },
    validation_status: status.length ? status : undefined,
  };
}

/**
 * The parent ingredient of a file shown to c2pa-rs as `standIn` (judged under `settings`), with its manifest store
 * `store`; `matches`: whether the whole file hashes to the parent's hard binding (assertion.<stem>), checked here by
 * streaming, whose match replaces c2pa-rs's verdict on the stand-in.
 */
export async function ingredientOfStandIn(
  standIn: Uint8Array,
  store: Uint8Array,
  mimeType: SignableMimeType,
  settings: string | undefined,
  title: string | undefined,
  binding: { stem: string; matches: boolean | undefined },
): Promise<ParentIngredient> {
  const builder = c2paWasm().WasmBuilder.new(settings);
  let made: IngredientDefinition;
  try {
    const parent = { ...(title === undefined ? {} : { title }), relationship: 'parentOf', label: PARENT_INGREDIENT_ID };
    await builder.addIngredientFromBlob(JSON.stringify(parent), mimeType, new BytesBlob(standIn, mimeType));
    const definition = builder.getDefinition() as unknown;
    made = ((typeof definition === 'string' ? JSON.parse(definition) : definition) as { ingredients: IngredientDefinition[] }).ingredients[0]!;
  } finally {
    builder.free();
  }
  return { definition: binding.matches ? withHashMatch(made, binding.stem) : made, store };
}

/**
 * The parent ingredient of a source that carries a manifest: c2pa-rs's ingredient of `standIn` (judged under
 * `settings`), its BMFF hash verdict taken from the whole file at `sourcePath`.
 */
export async function parentIngredientOf(file: BmffFileReader, top: BmffTopLevel, standIn: Uint8Array, mimeType: SignableMimeType, settings: string | undefined, sourcePath: string, title: string | undefined): Promise<ParentIngredient> {
  const store = new Uint8Array(await manifestStoreOf(file, top.manifestBox!));
  return ingredientOfStandIn(standIn, store, mimeType, settings, title, { stem: 'bmffHash', matches: await storeBmffHashMatches(store, sourcePath) });
}

/** Adds the parent ingredient to a builder: its manifest store as the resource its manifest_data names. */
function addParent(builder: Builder, parent: ParentIngredient): void {
  const identifier = parent.definition.manifest_data?.identifier ?? 'parent.c2pa';
  builder.addResourceFromBlob(identifier, new BytesBlob(parent.store, MANIFEST_STORE_TYPE));
  builder.addIngredient(JSON.stringify({ ...parent.definition, manifest_data: { format: MANIFEST_STORE_TYPE, identifier } }));
}

export interface StandInSigning extends BuilderSetup {
  standIn: Uint8Array;
  parent?: ParentIngredient;
  /** The hard binding's data for a digest (default: a file-level c2pa.hash.bmff.v3, bmffHashAssertion). */
  hashAssertion?: (digest: Uint8Array) => Record<string, unknown>;
  /** The hard binding's label (default c2pa.hash.bmff.v3; c2pa.hash.data for WAV, MP3 and FLAC). */
  hashLabel?: string;
}

/**
 * Signs the stand-in with the hard binding's `digest` (a file-level BMFF hash, a fragmented file's init hash, a data
 * hash) and returns the manifest store. Without a digest, a placeholder of the same length: the store then has its final size.
 */
export async function signStandIn(setup: StandInSigning, digest: Uint8Array = new Uint8Array(BMFF_HASH_BYTES)): Promise<Uint8Array> {
  const data = (setup.hashAssertion ?? bmffHashAssertion)(digest);
  const definition: ManifestDefinition = { ...setup.definition, assertions: [...setup.definition.assertions, { label: setup.hashLabel ?? BMFF_HASH_LABEL, data }] };
  return withSigningBuilder({ ...setup, definition }, async (builder, signer) => {
    if (setup.parent) addParent(builder, setup.parent);
    builder.setNoEmbed(true);
    const { manifest } = (await builder.signAndGetManifestBytes(signer, [], setup.mimeType, new BytesBlob(setup.standIn, setup.mimeType))) as { manifest: Uint8Array };
    return manifest;
  });
}

/** A signer that signs nothing: it returns the reserve's worth of zeros, so the placeholder store has the final size without a vault call or a timestamp. */
export function placeholderSigner(signer: C2paSignerDefinition): C2paSignerDefinition {
  return { ...signer, sign: async () => new Uint8Array(signer.reserveSize) };
}
