/**
 * The manifest repository's side of signing: each signed file's manifest store, kept by its active manifest id,
 * and its fingerprint (ISCC Image-Code) in the soft-binding index, both with the discoverability in force.
 */
import type { Knex } from 'knex';
import { activeManifestLabel } from '../c2pa/manifest-store-label.js';
import { findOrganisation } from '../db/repositories/organisations.js';
import { filesFollowingOrgQuery, insertManifestStore, setManifestStoresDiscoverable } from '../db/repositories/sign-jobs.js';
import { insertSoftBinding, setSoftBindingsDiscoverable } from './code-index.js';
import type { FingerprintMode } from './fingerprint-mode.js';
import { hashToInt64, type ImageCode } from './iscc-codec.js';
import { imageCodeFromFile } from './iscc-image.js';

type Db = Knex | Knex.Transaction;

/**
 * The ISCC Image-Code of an image (bytes or a file path), in the configured mode (FINGERPRINT_MODE, config
 * fingerprintMode); undefined when it cannot be decoded (signed without one). Signing and lookups must use the
 * same mode: the two modes' codes of one image differ by a few bits.
 */
export async function fingerprintImage(image: Uint8Array | string, mode: FingerprintMode): Promise<ImageCode | undefined> {
  try {
    return await imageCodeFromFile(typeof image === 'string' ? image : Buffer.from(image.buffer, image.byteOffset, image.byteLength), { mode });
  } catch {
    return undefined;
  }
}

/** What a job's signed file gets from the repository: listed publicly or not, fingerprinted (soft binding) or not. */
export interface RepositorySettings {
  discoverable: boolean;
  softBinding: boolean;
}

/**
 * Each of a job's own choices (from its request or template) or, without one, its organisation's setting: read
 * from the organisation only when the job leaves one to it.
 */
export async function effectiveRepositorySettings(db: Db, orgId: string, job: { discoverable: boolean | null; soft_binding: boolean | null }): Promise<RepositorySettings> {
  const org = job.discoverable === null || job.soft_binding === null ? await findOrganisation(orgId, db) : undefined;
  return { discoverable: job.discoverable ?? org?.discoverable ?? true, softBinding: job.soft_binding ?? org?.soft_binding ?? true };
}

export interface RepositoryEntry {
  signedFileId: string;
  orgId: string;
  /** The manifest store signing produced (application/c2pa). */
  manifestStore: Uint8Array;
  fingerprint: ImageCode | undefined;
  discoverable: boolean;
}

/** Stores the manifest (and the fingerprint) of a signed file, in the caller's transaction; returns the manifest id. */
export async function recordInRepository(trx: Db, entry: RepositoryEntry): Promise<string> {
  const manifestId = activeManifestLabel(entry.manifestStore);
  await insertManifestStore({ manifestId, signedFileId: entry.signedFileId, orgId: entry.orgId, store: entry.manifestStore, discoverable: entry.discoverable }, trx);
  if (entry.fingerprint) {
    await insertSoftBinding(trx, {
      signedFileId: entry.signedFileId,
      orgId: entry.orgId,
      code: hashToInt64(entry.fingerprint.hash),
      value: entry.fingerprint.iscc,
      discoverable: entry.discoverable,
    });
  }
  return manifestId;
}

/**
 * An organisation changed its setting: files without a choice of their own follow it (those whose job chose stay
 * as they are). Runs in the caller's transaction, with the organisation's row update.
 */
export async function applyOrgDiscoverability(trx: Db, orgId: string, discoverable: boolean): Promise<void> {
  await setManifestStoresDiscoverable(orgId, filesFollowingOrgQuery(orgId, trx), discoverable, trx);
  await setSoftBindingsDiscoverable(trx, orgId, filesFollowingOrgQuery(orgId, trx), discoverable);
}
