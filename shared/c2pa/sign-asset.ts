import type { WasmBuilder as Builder } from '@contentauth/c2pa-wasm';
import type { VaultKey } from '../vault/types.js';
import { coseSigner, type Timestamper } from './cose-sign1.js';
import { C2paError, describeWasmError } from './errors.js';
import { opensParentIngredient, PARENT_INGREDIENT_ID, type ManifestDefinition } from './manifest-definition.js';
import { assertSignableMedia, type SignableMimeType } from './media-type.js';
import { hasManifest } from './read-asset.js';
import { trustSettings } from './settings.js';
import { makeClaimThumbnail } from './thumbnail.js';
import { BytesBlob, c2paWasm } from './wasm.js';

export interface SignAssetInput {
  bytes: Uint8Array;
  mimeType: SignableMimeType;
  /** From buildManifestDefinition; built with sourceHasManifest matching these bytes. */
  manifest: ManifestDefinition;
  key: VaultKey;
  /** Leaf certificate first, then the sub-CA (no root). The leaf must certify `key`. */
  chainDer: Uint8Array[];
  timestamper?: Timestamper;
  /**
   * Anchors to judge an existing manifest by when the source becomes the parent ingredient. c2pa-rs records
   * that judgement in the ingredient; without anchors every parent is recorded as signingCredential.untrusted.
   */
  trustAnchorsPem?: string | readonly string[];
  /**
   * Called when the definition asks for a claim thumbnail that cannot be made (an image too large or one the
   * decoder refuses): the file is then signed without one, as c2pa-rs does by default (thumbnail ignore_errors).
   */
  onThumbnailError?: (err: unknown) => void;
}

/** The definition says created, but the source has a manifest that signing would silently discard. */
export class SourceManifestConflictError extends C2paError {
  constructor() {
    super('the source already carries a C2PA manifest: build the definition with sourceHasManifest: true (c2pa.opened)');
    this.name = 'SourceManifestConflictError';
  }
}

/**
 * Embeds a manifest signed by the vault key and returns the signed file.
 *
 * CPU-bound for tens of milliseconds (hashing, JUMBF, c2pa-rs verify-after-sign) around one awaited vault call;
 * run it where it cannot stall BullMQ's lock renewal (sandboxed processor or worker thread). Concurrent calls
 * in one process are safe: each uses its own builder in the shared WASM instance.
 */
export async function signAsset(input: SignAssetInput): Promise<Uint8Array> {
  return (await signAssetWithManifest(input)).asset;
}

/** What signing produced: the signed file and its manifest store on its own (JUMBF, application/c2pa). */
export interface SignedAsset {
  asset: Uint8Array;
  manifestStore: Uint8Array;
}

/** signAsset, also handing back the manifest store it embedded (for the manifest repository). */
export async function signAssetWithManifest(input: SignAssetInput): Promise<SignedAsset> {
  const mimeType = assertSignableMedia(input.bytes, input.mimeType);
  const opensParent = opensParentIngredient(input.manifest);
  if (!opensParent && (await hasManifest(input.bytes, mimeType))) throw new SourceManifestConflictError();

  const { WasmBuilder } = c2paWasm();
  const signer = coseSigner({ key: input.key, chainDer: input.chainDer, timestamper: input.timestamper });
  // c2pa-wasm flattens a rejected sign() into a string; keep the original (VaultUnavailableError, a timestamp
  // failure) so callers can tell a retryable vault outage from a bad file.
  let signFailure: unknown;
  const capturingSigner = {
    ...signer,
    sign: async (claim: Uint8Array) => {
      try {
        return await signer.sign(claim);
      } catch (err) {
        signFailure = err;
        throw err;
      }
    },
  };

  // c2pa-rs's WASM build cannot make the claim thumbnail the definition names: it is made here.
  let definition = input.manifest;
  let thumbnail: Uint8Array | undefined;
  if (definition.thumbnail) {
    try {
      thumbnail = await makeClaimThumbnail(input.bytes, mimeType);
    } catch (err) {
      input.onThumbnailError?.(err);
      const { thumbnail: _omitted, ...rest } = definition;
      definition = rest;
    }
  }

  let builder: Builder | undefined;
  try {
    const context = input.trustAnchorsPem === undefined ? undefined : trustSettings(input.trustAnchorsPem);
    builder = WasmBuilder.fromJson(JSON.stringify({ ...definition, format: mimeType }), context);
    if (thumbnail && definition.thumbnail) builder.addResourceFromBlob(definition.thumbnail.identifier, new BytesBlob(thumbnail, 'image/jpeg'));
    const source = new BytesBlob(input.bytes, mimeType);
    if (opensParent) {
      const parent = { title: input.manifest.title, relationship: 'parentOf', label: PARENT_INGREDIENT_ID };
      await builder.addIngredientFromBlob(JSON.stringify(parent), mimeType, source);
    }
    const { asset, manifest } = (await builder.signAndGetManifestBytes(capturingSigner, [], mimeType, source)) as { asset: Uint8Array; manifest: Uint8Array };
    return { asset, manifestStore: manifest };
  } catch (err) {
    if (signFailure !== undefined) throw signFailure;
    throw new C2paError(`c2pa-rs could not sign the ${mimeType} file: ${describeWasmError(err)}`, { cause: err });
  } finally {
    // WASM memory is not garbage collected promptly; free the builder now.
    builder?.free();
  }
}
