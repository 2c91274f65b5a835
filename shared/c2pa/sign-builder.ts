import type { WasmBuilder as Builder } from '@contentauth/c2pa-wasm';
import { ServiceError } from '../errors.js';
import type { C2paSignerDefinition } from './cose-sign1.js';
import { C2paError, describeWasmError } from './errors.js';
import type { ManifestDefinition } from './manifest-definition.js';
import type { SignableMimeType } from './media-type.js';
import type { RemoteManifestTarget } from './remote-manifest.js';
import type { SignOptions } from './sign-options.js';
import { claimThumbnailOf, type ThumbnailSource } from './thumbnail.js';
import { BytesBlob, c2paWasm } from './wasm.js';

/**
 * What every way of signing does with c2pa-wasm's builder, whatever it signs (the file itself, or a stand-in for a
 * large BMFF file): the claim thumbnail the definition asks for, made here, and a builder made from the definition,
 * whose signer's failure (a vault outage, a timestamp failure) is rethrown as it was rather than as c2pa-wasm's string.
 */

/**
 * The definition as it will be signed and its claim thumbnail. c2pa-rs's WASM build cannot make the thumbnail the
 * definition names: it is made here (thumbnail.ts), or taken from `input.thumbnail`; one that cannot be made is left
 * out (reported to onThumbnailError).
 */
export async function withClaimThumbnail(
  input: Pick<SignOptions, 'thumbnail' | 'ffmpegPath' | 'pdftoppmPath' | 'onThumbnailError'>,
  definition: ManifestDefinition,
  mimeType: SignableMimeType,
  source: ThumbnailSource,
): Promise<{ definition: ManifestDefinition; thumbnail?: Uint8Array }> {
  if (!definition.thumbnail) return { definition };
  try {
    return { definition, thumbnail: input.thumbnail ?? (await claimThumbnailOf(source, mimeType, { ffmpegPath: input.ffmpegPath, pdftoppmPath: input.pdftoppmPath })) };
  } catch (err) {
    input.onThumbnailError?.(err);
    const { thumbnail: _omitted, ...rest } = definition;
    return { definition: rest };
  }
}

export interface BuilderSetup {
  definition: ManifestDefinition;
  mimeType: SignableMimeType;
  thumbnail?: Uint8Array;
  /** c2pa-rs settings (signingSettings). */
  settings: string | undefined;
  signer: C2paSignerDefinition;
  /** The store kept out of the file: labelled and referenced as the target says (c2pa-rs's no_embed and remote URL). */
  remoteManifest?: RemoteManifestTarget;
}

/**
 * Runs `use` with a builder made from the definition (its thumbnail added) and the signer to sign with. Concurrent
 * calls in one process are safe: each uses its own builder in the shared WASM instance, freed at the end.
 */
export async function withSigningBuilder<T>(setup: BuilderSetup, use: (builder: Builder, signer: C2paSignerDefinition) => Promise<T>): Promise<T> {
  const { mimeType, thumbnail, remoteManifest } = setup;
  const definition = remoteManifest ? { ...setup.definition, label: remoteManifest.label } : setup.definition;
  // c2pa-wasm flattens a rejected sign() into a string; keep the original (VaultUnavailableError, a timestamp
  // failure) so callers can tell a retryable vault outage from a bad file.
  let signFailure: unknown;
  const signer = {
    ...setup.signer,
    sign: async (claim: Uint8Array) => {
      try {
        return await setup.signer.sign(claim);
      } catch (err) {
        signFailure = err;
        throw err;
      }
    },
  };
  let builder: Builder | undefined;
  try {
    builder = c2paWasm().WasmBuilder.fromJson(JSON.stringify({ ...definition, format: mimeType }), setup.settings);
    if (thumbnail && definition.thumbnail) builder.addResourceFromBlob(definition.thumbnail.identifier, new BytesBlob(thumbnail, 'image/jpeg'));
    if (remoteManifest) {
      builder.setNoEmbed(true);
      builder.setRemoteUrl(remoteManifest.url);
    }
    return await use(builder, signer);
  } catch (err) {
    if (signFailure !== undefined) throw signFailure;
    if (err instanceof ServiceError) throw err;
    throw new C2paError(`c2pa-rs could not sign the ${mimeType} file: ${describeWasmError(err)}`, { cause: err });
  } finally {
    // WASM memory is not garbage collected promptly; free the builder now.
    builder?.free();
  }
}
