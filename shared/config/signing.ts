/** How the workers sign: jobs and retries, timestamps and stapled OCSP answers, thumbnails, fingerprints, sandboxes. */
import { C2PA_SPEC_VERSIONS, DEFAULT_C2PA_SPEC_VERSION, type C2paSpecVersion } from '../c2pa/spec-version.js';
import { FINGERPRINT_MODES, type FingerprintMode } from '../softbinding/fingerprint-mode.js';
import { bool, ConfigError, int, MiB, oid, oneOf, str, type Env, type NodeEnv } from './parse.js';

export interface OcspStaplingConfig {
  /** Staple the signing certificate's OCSP answer in each signature (OCSP_STAPLING, default true). */
  enabled: boolean;
  /** How long a worker waits for an OCSP answer before it signs without one (OCSP_STAPLE_TIMEOUT_MS). */
  timeoutMs: number;
  /**
   * An external CA's responder may be on a private or loopback address (OCSP_STAPLE_ALLOW_PRIVATE: tests and
   * development only). External responders are always fetched over the outbound guard; plain http is allowed, as
   * OCSP is served over http (RFC 5019).
   */
  allowPrivate: boolean;
}

export interface SigningSettings {
  /** How long a worker waits for the TSA's answer (connect + reply), in milliseconds. */
  tsaTimeoutMs: number;
  /** Policy OID the service's own TSA writes into every timestamp (TSTInfo.policy). */
  tsaPolicyOid: string;
  /** Sign without an RFC 3161 timestamp (not recommended: files turn Invalid when the leaf expires). */
  signWithoutTimestamp: boolean;
  /** The OCSP answer stapled in every signature (OCSP_STAPLING, OCSP_STAPLE_*). */
  ocspStapling: OcspStaplingConfig;
  workerConcurrency: number;
  /**
   * A sandbox process whose C2PA WASM memory grew past this (WORKER_RECYCLE_WASM_BYTES) is ended once it has been
   * idle for workerRecycleIdleMs (WORKER_RECYCLE_IDLE_MS; 0: right after its job): WebAssembly memory never shrinks,
   * so one large video would otherwise stay resident in that process for good.
   */
  workerRecycleWasmBytes: number;
  workerRecycleIdleMs: number;
  /**
   * ffmpeg (FFMPEG_PATH, default `ffmpeg` on the PATH; `off`: none), which takes the frame a video's claim thumbnail
   * is made of. Without it, or when it is not installed, video is signed without a thumbnail (the worker says so).
   */
  ffmpegPath: string | undefined;
  /**
   * pdftoppm (PDFTOPPM_PATH, default `pdftoppm` on the PATH, Debian's poppler-utils; `off`: none), which renders the
   * first page a PDF's claim thumbnail is made of. Without it PDFs are signed without a thumbnail (the worker says so).
   */
  pdftoppmPath: string | undefined;
  /**
   * How signing computes an image's ISCC fingerprint (FINGERPRINT_MODE): `fast` (default) decodes a JPEG at reduced
   * scale in the DCT domain before the 32x32 resize, `exact` decodes it whole (the reference SDK's pixels). See the
   * README (Soft bindings) for what differs.
   */
  fingerprintMode: FingerprintMode;
  /**
   * The C2PA specification version the manifests declare (C2PA_SPEC_VERSION, claim_generator_info.specVersion): `2.4`
   * (default) or `2.2`, for taking the service through the conformance program's spec 2.2 profile (see
   * shared/c2pa/spec-version.ts).
   */
  c2paSpecVersion: C2paSpecVersion;
  /** Attempts per sign job before it is marked failed, and the first retry delay (doubling after). */
  signAttempts: number;
  signBackoffMs: number;
  /** How long a worker's claim on a job lasts unrenewed: a killed worker's job is taken over after about this. */
  workerLockMs: number;
  /** How often the scheduler rebuilds lost queue entries from Postgres (RECONCILE_INTERVAL_MS). */
  reconcileIntervalMs: number;
}

/**
 * Policy of the service's own TSA. The default is an OID under 2.25 (ITU-T X.667: an OID made from a UUID,
 * needing no registration); operators with their own arc set TSA_POLICY_OID.
 */
export const DEFAULT_TSA_POLICY_OID = '2.25.190444735804440080192247072126339992566';

/** A helper program's path, or undefined for `off`. */
const program = (env: Env, name: string, fallback: string): string | undefined => (str(env, name, fallback) === 'off' ? undefined : str(env, name, fallback));

export function signingSettings(env: Env, nodeEnv: NodeEnv): SigningSettings {
  return {
    tsaTimeoutMs: int(env, 'TSA_TIMEOUT_MS', 10_000, 100, 120_000),
    tsaPolicyOid: oid(env, 'TSA_POLICY_OID', DEFAULT_TSA_POLICY_OID),
    signWithoutTimestamp: bool(env, 'SIGN_WITHOUT_TIMESTAMP', false),
    ocspStapling: ocspStapling(env, nodeEnv),
    workerConcurrency: int(env, 'WORKER_CONCURRENCY', 2, 1, 256),
    workerRecycleWasmBytes: int(env, 'WORKER_RECYCLE_WASM_BYTES', 512 * MiB, 0, 4 * 1024 * MiB),
    workerRecycleIdleMs: int(env, 'WORKER_RECYCLE_IDLE_MS', 30_000, 0, 24 * 3600_000),
    ffmpegPath: program(env, 'FFMPEG_PATH', 'ffmpeg'),
    pdftoppmPath: program(env, 'PDFTOPPM_PATH', 'pdftoppm'),
    fingerprintMode: oneOf(env, 'FINGERPRINT_MODE', 'fast', FINGERPRINT_MODES),
    c2paSpecVersion: oneOf(env, 'C2PA_SPEC_VERSION', DEFAULT_C2PA_SPEC_VERSION, C2PA_SPEC_VERSIONS),
    signAttempts: int(env, 'SIGN_ATTEMPTS', 5, 1, 50),
    signBackoffMs: int(env, 'SIGN_BACKOFF_MS', 2000, 0, 600_000),
    workerLockMs: int(env, 'WORKER_LOCK_MS', 30_000, 2000, 600_000),
    reconcileIntervalMs: int(env, 'RECONCILE_INTERVAL_MS', 30_000, 100, 24 * 3600_000),
  };
}

/** OCSP_STAPLE_ALLOW_PRIVATE is for tests and development: never in production. */
function ocspStapling(env: Env, nodeEnv: NodeEnv): OcspStaplingConfig {
  const allowPrivate = bool(env, 'OCSP_STAPLE_ALLOW_PRIVATE', false);
  if (allowPrivate && nodeEnv === 'production') {
    throw new ConfigError('OCSP_STAPLE_ALLOW_PRIVATE', 'is for tests and development: in production external OCSP responders are reached on public addresses only');
  }
  return { enabled: bool(env, 'OCSP_STAPLING', true), timeoutMs: int(env, 'OCSP_STAPLE_TIMEOUT_MS', 3000, 100, 60_000), allowPrivate };
}
