import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { identityAssertion } from '../../shared/c2pa/cawg-identity.js';
import { buildManifestDefinition } from '../../shared/c2pa/manifest-definition.js';
import { assertRemoteManifestSupported, newRemoteManifestTarget } from '../../shared/c2pa/remote-manifest.js';
import type { ManifestInput } from '../../shared/domain/manifest-input.js';
import { signBytes, signFile } from '../../shared/c2pa/sign-asset.js';
import { signRendition } from '../../shared/c2pa/bmff-rendition-sign.js';
import type { SignableMimeType } from '../../shared/c2pa/media-type.js';
import type { RenditionRole } from '../../shared/db/repositories/rendition-parts.js';
import { assertImagePixelsWithin } from '../../shared/media/image-pixels.js';
import { softBindingAssertion } from '../../shared/softbinding/binding-value.js';
import type { ImageCode } from '../../shared/softbinding/iscc-codec.js';
import { fingerprintImage } from '../../shared/softbinding/repository.js';
import type { SignJobDeps } from './deps.js';
import { imageContent, type ImageContent } from './image-content.js';
import type { PreparedJob } from './prepare.js';
import type { JobWorkspace } from './workspace.js';

/**
 * What an image's pixels give its signature: the fingerprint (c2pa.soft-binding in the manifest and the index row, so
 * a stripped copy can be found again) unless the job's soft-binding setting is off, and the claim thumbnail made of
 * the same decode. ISCC image codes are of images; video and audio get none. The pixel limit is checked again here
 * (an upload from before the limit, or a limit lowered since): nothing decodes a bomb.
 */
export async function fingerprintMedia(deps: SignJobDeps, prepared: PreparedJob, log: Logger): Promise<ImageContent> {
  const { kind, bytes, sourcePath, settings, job } = prepared;
  if (kind === 'image') await assertImagePixelsWithin((bytes ?? sourcePath)!, deps.maxImagePixels);
  const softBinding = kind === 'image' && settings.softBinding;
  const content = bytes
    ? await imageContent(bytes, { fingerprint: softBinding ? deps.fingerprintMode : undefined, thumbnail: job.manifest.thumbnail === true })
    : { fingerprint: softBinding && sourcePath ? await fingerprintImage(sourcePath, deps.fingerprintMode) : undefined };
  if (softBinding && !content.fingerprint) log.warn('no ISCC fingerprint could be computed; signing without a soft binding');
  return content;
}

/** A signed rendition's part in the workspace: the signed init segment and segments, the playlists as they came. */
export interface SignedPart {
  position: number;
  role: RenditionRole;
  filename: string;
  path: string;
  size: number;
  sha256: string;
}

/**
 * A signed file: in memory (`asset`) or in the workspace (`path`), with its manifest store and hash. A signed rendition
 * has its `parts`; its path, hash and manifest store are its init segment's, its size that of all its parts.
 */
export interface SignedMedia {
  manifestStore: Uint8Array;
  sha256: string;
  size: number;
  asset?: Uint8Array;
  path?: string;
  parts?: SignedPart[];
}

/**
 * Signs the prepared media with the organisation's key (vault) and a timestamp (TSA). Images signed in memory skip
 * c2pa-rs's second pass over the signed file (see SignOptions.verifyAfterSign); the formats signed from disk keep it.
 */
export async function signMedia(deps: SignJobDeps, prepared: PreparedJob, content: ImageContent, workspace: JobWorkspace, log: Logger): Promise<SignedMedia> {
  const { job, upload, identity, bytes, sourcePath, medium } = prepared;
  // Checked when the job was requested; again here, as a rendition's parts are signed past signFile's own check.
  if (job.manifest_placement === 'remote') assertRemoteManifestSupported(upload.mime_type);
  const fingerprint: ImageCode | undefined = content.fingerprint;
  const signing = {
    mimeType: upload.mime_type,
    // Built once signing has looked for a manifest in the source: opened (parent ingredient) or created. The job's
    // manifest was validated when it was requested (and is again by buildManifestDefinition).
    manifest: (sourceHasManifest: boolean) => buildManifestDefinition(job.manifest as ManifestInput, {
      sourceHasManifest,
      contentAssertions: fingerprint ? [softBindingAssertion(fingerprint.iscc)] : [],
      medium,
      specVersion: deps.specVersion,
    }),
    key: identity.key,
    chainDer: identity.chainDer,
    timestamper: deps.timestamper,
    // Revocation evidence in the signature; a signature goes on without it (counted in mss_ocsp_staples_total).
    ocspResponse: await deps.ocspStaple?.(identity),
    // Signed with the person's own key and certificate, timestamped like the claim signature.
    identityAssertions: prepared.person ? [identityAssertion({ key: prepared.person.identity.key, chainDer: prepared.person.identity.chainDer, roles: prepared.person.roles, timestamper: deps.timestamper })] : [],
    ffmpegPath: deps.ffmpegPath,
    pdftoppmPath: deps.pdftoppmPath,
    // A remote manifest's URL is chosen now, so the file can carry it; the store is kept under it on completion.
    remoteManifest: job.manifest_placement === 'remote' ? newRemoteManifestTarget(deps.baseUrl) : undefined,
    onThumbnailError: (err: unknown) => log.warn({ err }, 'signing without the claim thumbnail the manifest asks for'),
  };
  if (bytes) {
    const signed = await signBytes({ ...signing, bytes, thumbnail: content.thumbnail, verifyAfterSign: false });
    return { manifestStore: signed.manifestStore, sha256: signed.sha256, size: signed.asset.byteLength, asset: signed.asset };
  }
  if (prepared.rendition) return signRenditionParts(prepared.rendition, { ...signing, mimeType: upload.mime_type as SignableMimeType }, workspace);
  const outputPath = path.join(await workspace.dir(), 'signed');
  const signed = await signFile({ ...signing, sourcePath: sourcePath!, outputPath });
  return { manifestStore: signed.manifestStore, sha256: signed.sha256, size: signed.size, path: outputPath };
}

/** A rendition's parts signed (shared/c2pa/bmff-rendition-sign.ts) into the workspace; its playlists go as they came. */
async function signRenditionParts(parts: NonNullable<PreparedJob['rendition']>, signing: Omit<Parameters<typeof signRendition>[0], 'init' | 'segments' | 'outputDir'>, workspace: JobWorkspace): Promise<SignedMedia> {
  const outputDir = path.join(await workspace.dir(), 'signed-rendition');
  await mkdir(outputDir, { mode: 0o700 });
  const of = (role: RenditionRole) => parts.filter((p) => p.role === role);
  const signed = await signRendition({ ...signing, init: { path: parts[0]!.path, name: parts[0]!.filename }, segments: of('fragment').map((p) => ({ path: p.path, name: p.filename })), outputDir }, signing.mimeType);
  const part = (p: (typeof parts)[number], out: { path: string; size: number; sha256: string }): SignedPart => ({ position: p.position, role: p.role, filename: p.filename, ...out });
  const signedParts = [
    part(parts[0]!, signed.init),
    ...of('fragment').map((p, i) => part(p, signed.segments[i]!)),
    ...of('playlist').map((p) => part(p, p)),
  ];
  return { manifestStore: signed.init.manifestStore, sha256: signed.init.sha256, size: signedParts.reduce((n, p) => n + p.size, 0), path: signed.init.path, parts: signedParts };
}
