import path from 'node:path';
import type { Knex } from 'knex';
import type { Timestamper } from '../../shared/tsa/client.js';
import type { C2paSpecVersion } from '../../shared/c2pa/spec-version.js';
import type { Config } from '../../shared/config.js';
import type { Logger } from '../../shared/logger.js';
import { loadPersonSigningIdentity } from '../../shared/pki/person-signing-identity.js';
import { loadOrgSigningIdentity } from '../../shared/pki/org-signing-identity.js';
import type { SigningIdentity } from '../../shared/pki/signing-identity.js';
import type { FingerprintMode } from '../../shared/softbinding/fingerprint-mode.js';
import type { JobEvents } from '../../shared/queue/types.js';
import { createFileStore, type FileStore } from '../../shared/storage/index.js';
import { sweepLeftovers } from '../../shared/storage/temp-owner.js';
import type { KeyVault } from '../../shared/vault/types.js';
import { httpTimestamper } from '../../shared/tsa/client.js';
import { OcspStapler } from '../../shared/pki/ocsp-stapler.js';

export interface SignJobDeps {
  knex: Knex;
  /** The API's address, for the job views webhook events carry (BASE_URL). */
  baseUrl: string;
  files: FileStore;
  events: JobEvents;
  /** The organisation's signing identity (its own certificate and key). */
  signingIdentity: (orgId: string) => Promise<SigningIdentity>;
  /** A person's identity certificate and key, for a job that signs as them (CAWG identity assertion). */
  personIdentity?: (orgId: string, userId: string) => Promise<SigningIdentity>;
  timestamper?: Timestamper;
  /** The signing certificate's OCSP answer to staple (OCSP_STAPLING); undefined: none could be had, sign without. */
  ocspStaple?: (identity: SigningIdentity) => Promise<Uint8Array | undefined>;
  logger: Logger;
  /**
   * Where a job of a file signed from disk (video, audio) keeps its copy of the upload and the signed file while it
   * works (a directory of its own inside, removed when the job ends, signed or not). Default: the OS temp directory; the worker uses DATA_DIR/tmp, on the
   * same disk as a local file store (no copy, see FileStore.readToFile) and never a memory-backed /tmp.
   */
  tempDir?: string;
  /** ffmpeg for video claim thumbnails (FFMPEG_PATH); without it video is signed without one. */
  ffmpegPath?: string;
  /** pdftoppm for PDF claim thumbnails (PDFTOPPM_PATH); without it PDFs are signed without one. */
  pdftoppmPath?: string;
  /** How image fingerprints are computed (FINGERPRINT_MODE). */
  fingerprintMode: FingerprintMode;
  /** The C2PA specification version the manifests declare (C2PA_SPEC_VERSION); default 2.4. */
  specVersion?: C2paSpecVersion;
  /** Largest image (width x height from its header) signed at all (MAX_IMAGE_PIXELS). */
  maxImagePixels: number;
}

/**
 * Everything a sign job needs, from the process's own database, vault and event connections. Every signature
 * is timestamped by the TSA at TSA_URL (the service's own by default); a TSA failure fails the attempt, which
 * the queue retries. Only SIGN_WITHOUT_TIMESTAMP=true signs without one.
 */
export function signJobDeps(parts: { config: Config; knex: Knex; vault: KeyVault; events: JobEvents; logger: Logger }): SignJobDeps {
  const { config, knex, vault, events, logger } = parts;
  if (config.signWithoutTimestamp) {
    logger.warn('SIGN_WITHOUT_TIMESTAMP is set: signed files carry no RFC 3161 timestamp and turn Invalid when the leaf certificate expires');
  }
  return {
    knex,
    baseUrl: config.baseUrl,
    files: createFileStore(config),
    events,
    // An organisation from before per-organisation certificates gets its own with its first signature.
    signingIdentity: (orgId) => loadOrgSigningIdentity({ knex, vault }, orgId),
    personIdentity: (orgId, userId) => loadPersonSigningIdentity({ knex, vault }, orgId, userId),
    timestamper: config.signWithoutTimestamp ? undefined : httpTimestamper({ url: config.tsaUrl, timeoutMs: config.tsaTimeoutMs }),
    ocspStaple: ocspStapleOf(config, logger),
    logger,
    // A video or audio job's copy of its upload and its signed file (images are signed in memory): on the data disk
    // (as API uploads are staged), never a memory-backed /tmp, and beside DATA_DIR/files so a local store hands the
    // upload over as a hard link.
    tempDir: signTempDir(config),
    ffmpegPath: config.ffmpegPath,
    pdftoppmPath: config.pdftoppmPath,
    fingerprintMode: config.fingerprintMode,
    specVersion: config.c2paSpecVersion,
    maxImagePixels: config.maxImagePixels,
  };
}

/** One stapler per signing process: its answers are kept until their nextUpdate, for every job of the process. */
function ocspStapleOf(config: Pick<Config, 'ocspStapling'>, logger: Logger): SignJobDeps['ocspStaple'] {
  if (!config.ocspStapling.enabled) return undefined;
  const stapler = new OcspStapler({ timeoutMs: config.ocspStapling.timeoutMs, allowPrivate: config.ocspStapling.allowPrivate, logger });
  return (identity) => stapler.staple(identity);
}

/** Where sign jobs keep their temp files: DATA_DIR/signing (the API stages uploads in DATA_DIR/tmp). */
export function signTempDir(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, 'signing');
}

/**
 * Job directories that processes now gone left in DATA_DIR/signing (a worker killed mid-job): removed when a process
 * that signs starts (the worker, npm start). Live processes sharing DATA_DIR keep theirs (named by pid).
 */
export async function sweepSigningLeftovers(config: Pick<Config, 'dataDir'>, logger: Logger): Promise<void> {
  const removed = await sweepLeftovers(signTempDir(config));
  if (removed > 0) logger.info({ removed }, 'removed sign job directories left by processes that are gone');
}
