import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { C2PA_SPEC_VERSIONS, DEFAULT_C2PA_SPEC_VERSION, type C2paSpecVersion } from './c2pa/spec-version.js';
import { FINGERPRINT_MODES, type FingerprintMode } from './softbinding/fingerprint-mode.js';
import { PINS_FILE, TRUST_LIST_NAMES, type TrustListName } from './trust/lists.js';

/** Everything the service reads from the environment, validated once at start-up. */
export interface Config {
  nodeEnv: 'development' | 'test' | 'production';
  port: number;
  ocspPort: number;
  crlPort: number;
  /** Port of the service's own RFC 3161 time-stamp authority (served by the ocsp process). */
  tsaPort: number;
  baseUrl: string;
  ocspUrl: string;
  crlUrl: string;
  /**
   * The RFC 3161 TSA the workers ask for the timestamp of every signature: the service's own (default,
   * http://localhost:$TSA_PORT) or an external one (e.g. a public qualified TSA).
   */
  tsaUrl: string;
  /** How long a worker waits for the TSA's answer (connect + reply), in milliseconds. */
  tsaTimeoutMs: number;
  /** Policy OID the service's own TSA writes into every timestamp (TSTInfo.policy). */
  tsaPolicyOid: string;
  /** Sign without an RFC 3161 timestamp (not recommended: files turn Invalid when the leaf expires). */
  signWithoutTimestamp: boolean;
  /** The OCSP answer stapled in every signature (OCSP_STAPLING, OCSP_STAPLE_*). */
  ocspStapling: OcspStaplingConfig;
  /** Postgres connection string; undefined selects the embedded PGlite database in dataDir. */
  databaseUrl: string | undefined;
  redisUrl: string;
  /** Key prefix of the BullMQ queues and job events in Redis, so several deployments can share a server. */
  queuePrefix: string;
  dataDir: string;
  /** Azure Key Vault address; undefined selects the local vault in dataDir. */
  cloudVaultUrl: string | undefined;
  leafKeyName: string;
  subCaKeyName: string;
  rootKeyName: string;
  /** Name of the TSA's signing key in the vault. */
  tsaKeyName: string;
  /** The audit log: its checkpoint key in the vault, its origin line and how often a checkpoint is signed. */
  audit: { keyName: string; origin: string; checkpointSeconds: number };
  /** Name of the delegated OCSP responder's key in the vault (OCSP_KEY_NAME). */
  ocspKeyName: string;
  jwtSecret: string;
  logLevel: string;
  /** EVM JSON-RPC endpoint of the anchoring chain; undefined: `npm start` runs an embedded development chain. */
  chainRpcUrl: string | undefined;
  /** Key of the anchoring account (0x + 64 hex); required wherever anchor transactions are sent. */
  chainPrivateKey: string | undefined;
  /** Chain id the anchoring chain must report (CHAIN_ID); required in production with CHAIN_RPC_URL. */
  chainId: number | undefined;
  /** Port of the embedded development chain (anvil) `npm start` runs when CHAIN_RPC_URL is unset; 0: any free port. */
  chainPort: number;
  /** Batching and confirmation of on-chain anchors (shared/chain, scheduler/anchor-job.ts). */
  anchor: AnchorConfig;
  /** Azure Blob Storage for uploaded and signed files; undefined keeps them in DATA_DIR/files. */
  blobStorage: BlobStorageConfig | undefined;
  /** Largest image upload (MAX_UPLOAD_BYTES), and the fallback for any kind without a limit of its own. */
  maxUploadBytes: number;
  /**
   * Largest video upload (MAX_UPLOAD_BYTES_VIDEO) and audio upload (MAX_UPLOAD_BYTES_AUDIO). MP4, M4V, MOV, M4A, WAV,
   * MP3 and FLAC are signed streamed, in bounded memory whatever their size (shared/c2pa/bmff-sign.ts,
   * data-hash-sign.ts); AVI, which c2pa-wasm holds whole, and WAV (RIFF: 4 GiB) have bounds of their own.
   */
  maxUploadBytesVideo: number;
  maxUploadBytesAudio: number;
  /**
   * Most media segments one fragmented MP4 rendition may have (MAX_RENDITION_FRAGMENTS): an upload with more is 413.
   * Its bytes in all count against the limit of its kind (MAX_UPLOAD_BYTES_VIDEO or _AUDIO).
   */
  maxRenditionFragments: number;
  /** A resumable upload (tus) with no byte received for this long is abandoned: 404, then swept (UPLOAD_EXPIRY_HOURS). */
  uploadExpiryHours: number;
  /** How often the scheduler removes expired resumable uploads and their bytes (UPLOAD_SWEEP_INTERVAL_MS). */
  uploadSweepIntervalMs: number;
  workerConcurrency: number;
  /**
   * Images declaring more pixels than this (MAX_IMAGE_PIXELS; width x height from the header, an SVG's declared size)
   * are refused before anything decodes them: at upload, verify and sign.
   */
  maxImagePixels: number;
  /**
   * The API's verification pool (api/media/verify-pool.ts): processes that decode, fingerprint and run c2pa-rs reads
   * off the event loop (VERIFY_POOL_SIZE), how many tasks may wait for one beyond that (VERIFY_QUEUE_LIMIT; then 503
   * verification_busy), and the memory past which a member is replaced after its task (VERIFY_RECYCLE_BYTES).
   */
  verifyPoolSize: number;
  verifyQueueLimit: number;
  verifyRecycleBytes: number;
  /**
   * Processes of the API's second pool, for uploads' pixel checks alone (UPLOAD_CHECK_POOL_SIZE), so that an upload
   * never waits behind verifications; its queue limit and recycling bound are the verification pool's.
   */
  uploadCheckPoolSize: number;
  /** Requests one client address may have in flight on the heavy public endpoints (PUBLIC_CONCURRENCY_PER_ADDRESS). */
  publicConcurrencyPerAddress: number;
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
  crlSchedule: string;
  /** How often the scheduler rebuilds lost queue entries from Postgres (RECONCILE_INTERVAL_MS). */
  reconcileIntervalMs: number;
  /** The operator listener (/metrics, /queues): never public; loopback by default. */
  opsPort: number;
  opsHost: string;
  /** Subjects and leaf lifetime of the certificates `npm run pki -- init` / rotate-leaf issue. */
  pki: PkiSubjectConfig;
  /** What the OCSP responder answers for serials the service never issued (spec: good). */
  ocspUnissuedStatus: 'good' | 'unknown';
  /**
   * Front processes answering on OCSP_PORT (ocsp/fronts.ts, node:cluster); 0: the role's own process answers.
   * Default 1.
   */
  ocspProcesses: number;
  /** Requests per client per 15 minutes on login, register and refresh. */
  authRateLimit: number;
  /** Sign-in attempts per account (e-mail address) per 15 minutes that did not succeed, from any address. */
  loginFailureLimit: number;
  /** Certificate requests to external CAs one organisation may have open (MAX_PENDING_CERTIFICATE_REQUESTS): each makes a vault key. */
  maxPendingCertificateRequests: number;
  /** Requests per client per minute on the public endpoints (verify, manifest repository, lookups). */
  publicRateLimit: number;
  bcryptRounds: number;
  /**
   * Worker threads that hash and compare passwords off the event loop (PASSWORD_THREADS), and the password checks
   * that may be running or waiting at once in one API process (PASSWORD_CHECKS_MAX; beyond, 503 auth_busy).
   */
  passwordThreads: number;
  passwordChecksMax: number;
  /** Number of reverse proxies in front of the API whose X-Forwarded-For is believed (rate limits, logs). */
  trustProxyHops: number;
  /** The shipped trust lists verification uses (TRUST_LISTS, default official,interim). */
  trustLists: TrustListName[];
  /** Where the pinned trust lists are read (TRUST_LISTS_DIR; undefined: the shipped trust/lists). */
  trustListsDir: string | undefined;
  /** The operator's own trust anchors, for claim signers and timestamps, a PEM file (TRUST_ANCHORS_FILE). */
  trustAnchorsFile: string | undefined;
  /** The operator's end-entity claim-signing certificates, trusted one by one, a PEM file (TRUST_ALLOWED_FILE). */
  trustAllowedFile: string | undefined;
  /** The operator's anchors for timestamps only (TSAs), a PEM file (TRUST_TSA_ANCHORS_FILE). */
  trustTsaAnchorsFile: string | undefined;
  /** The operator's anchors for CAWG identity assertions only (people's identity certificates), a PEM file (CAWG_TRUST_ANCHORS_FILE). */
  cawgTrustAnchorsFile: string | undefined;
  /** How often a running process looks for a new version of the lists (TRUST_RELOAD_SECONDS). */
  trustReloadSeconds: number;
  /** Whether verification fetches a file's remote manifest (REMOTE_MANIFESTS on|off), through the outbound guard. */
  remoteManifests: RemoteManifestsConfig;
  /** Webhooks (issue 23): delivery, retries, the SSRF guard's development switch and the secrets' key. */
  webhooks: WebhookConfig;
}

export interface RemoteManifestsConfig {
  enabled: boolean;
  /**
   * BASE_URL's origin (scheme, host and port): the service's own remote manifests are fetched from it whatever its
   * scheme and addresses (development's http://localhost), as no user chose it.
   */
  ownOrigin: string;
  /** Let the fetch reach private and loopback addresses (REMOTE_MANIFESTS_ALLOW_PRIVATE; tests and development only). */
  allowPrivate: boolean;
  /** Extra TLS roots for the fetch, a PEM file (REMOTE_MANIFESTS_CA_FILE; a test's local HTTPS server). */
  caFile: string | undefined;
  /** Largest manifest store fetched (REMOTE_MANIFESTS_MAX_BYTES). */
  maxBytes: number;
  /** Fetches running at once in one API process (REMOTE_MANIFESTS_CONCURRENCY); beyond, 503 remote_fetch_busy. */
  concurrency: number;
  /**
   * Requests (each redirect counts) fetches may make per minute for one client address (REMOTE_MANIFESTS_PER_ADDRESS;
   * beyond, 429 remote_fetch_rate_limited) and to one host (REMOTE_MANIFESTS_PER_HOST; beyond, 503 remote_host_busy).
   */
  perAddress: number;
  perHost: number;
  /** How long a fetched manifest is kept and reused (REMOTE_MANIFESTS_CACHE_SECONDS; 0: not kept). */
  cacheSeconds: number;
  /** At most this many bytes of fetched manifests kept (REMOTE_MANIFESTS_CACHE_BYTES). */
  cacheBytes: number;
}

export interface WebhookConfig {
  /**
   * Let endpoints on private, loopback and link-local addresses, and plain http, through (WEBHOOK_ALLOW_PRIVATE;
   * development, tests; in production only with WEBHOOK_ALLOW_PRIVATE_IN_PRODUCTION, and warned about at start).
   */
  allowPrivate: boolean;
  /** Endpoints one organisation may have (MAX_WEBHOOK_ENDPOINTS): each event fans out to each, with its retries. */
  maxEndpoints: number;
  /** 32 bytes that encrypt endpoint secrets at rest (WEBHOOK_SECRET_KEY); unset: derived from JWT_SECRET. */
  secretKey: Buffer | undefined;
  /** How long the old secret still signs after a rotation (WEBHOOK_SECRET_GRACE_HOURS). */
  secretGraceHours: number;
  /** One attempt's limit: connect, send and the answer (WEBHOOK_TIMEOUT_MS). */
  timeoutMs: number;
  /** Attempts per delivery (WEBHOOK_ATTEMPTS) and the first retry delay, doubling after (WEBHOOK_BACKOFF_MS). */
  attempts: number;
  backoffMs: number;
  /** An endpoint failing every attempt for this long is disabled when a delivery fails for good (WEBHOOK_DISABLE_AFTER_HOURS). */
  disableAfterHours: number;
  /** Deliveries one worker makes at once (WEBHOOK_CONCURRENCY). */
  concurrency: number;
  /** How often the relay hands recorded deliveries to the queue (WEBHOOK_RELAY_INTERVAL_MS). */
  relayIntervalMs: number;
  /** signing_certificate.expiring is sent this many days before the end (WEBHOOK_CERT_EXPIRING_DAYS). */
  certificateExpiringDays: number;
}

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

export interface PkiSubjectConfig {
  /** O of every certificate (PKI_ORGANISATION). */
  organisation: string;
  /** C of every certificate, two letters (PKI_COUNTRY); none when unset. */
  country: string | undefined;
  rootCommonName: string;
  subCaCommonName: string;
  leafCommonName: string;
  /** CN of the time-stamping (TSA) certificate (PKI_TSA_CN). */
  tsaCommonName: string;
  /** Lifetime of a leaf signing certificate in days (LEAF_VALIDITY_DAYS). */
  leafValidityDays: number;
  /** CN of the OCSP responder certificate (PKI_OCSP_CN). */
  ocspCommonName: string;
  /**
   * Lifetime of the delegated OCSP responder certificate in days (OCSP_RESPONDER_VALIDITY_DAYS); the scheduler issues
   * the next one when a third of it is left.
   */
  ocspResponderValidityDays: number;
  /**
   * Lifetime of a person's identity certificate in days (IDENTITY_VALIDITY_DAYS). c2pa-rs judges an identity
   * assertion's certificate at reading time, timestamp or not: once it expires, files it signed read untrusted.
   */
  identityValidityDays: number;
}

export interface BlobStorageConfig {
  /** AZURE_STORAGE_CONNECTION_STRING (a secret: never logged). */
  connectionString?: string;
  /** AZURE_STORAGE_ACCOUNT_URL, used with DefaultAzureCredential when there is no connection string. */
  accountUrl?: string;
  /** BLOB_CONTAINER, created when absent. */
  container: string;
}

export interface AnchorConfig {
  /** A pending batch is sealed once it holds this many files (ANCHOR_BATCH_SIZE)... */
  batchSize: number;
  /** ...or once its oldest file has waited this long (ANCHOR_BATCH_MAX_AGE_MS). */
  batchMaxAgeMs: number;
  /** Blocks (the including block counts as 1) before a batch counts as anchored (ANCHOR_CONFIRMATIONS). */
  confirmations: number;
  /** How often the anchoring job looks at batches and the chain (ANCHOR_POLL_MS); failures back off from this. */
  pollMs: number;
  /** A transaction still unmined after this long is re-sent with higher fees (ANCHOR_RESEND_AFTER_MS). */
  resendAfterMs: number;
  /** Sealed batches not yet anchored, at most (ANCHOR_MAX_IN_FLIGHT); further files wait in the pending batch. */
  maxInFlight: number;
}

export class ConfigError extends Error {
  constructor(readonly variable: string, problem: string) {
    super(`configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

/** Placeholders that must never sign production tokens. */
const KNOWN_WEAK_SECRETS = new Set(['secret', 'changeme', 'change-me', 'jwt_secret', 'your-secret', 'development']);
const MIN_PRODUCTION_SECRET_LENGTH = 32;

type Env = Record<string, string | undefined>;

function str(env: Env, name: string, fallback: string): string {
  const v = env[name];
  return v === undefined || v === '' ? fallback : v;
}

function optional(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = optional(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${n}`);
  return n;
}

function url(env: Env, name: string, fallback: string | undefined, protocols: string[]): string | undefined {
  const raw = optional(env, name) ?? fallback;
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `is not a valid URL`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')}, got ${parsed.protocol}`);
  }
  return raw.replace(/\/+$/, '');
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = optional(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['true', '1', 'yes'].includes(raw)) return true;
  if (['false', '0', 'no'].includes(raw)) return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

/**
 * Policy of the service's own TSA. The default is an OID under 2.25 (ITU-T X.667: an OID made from a UUID,
 * needing no registration); operators with their own arc set TSA_POLICY_OID.
 */
export const DEFAULT_TSA_POLICY_OID = '2.25.190444735804440080192247072126339992566';

function oid(env: Env, name: string, fallback: string): string {
  const v = str(env, name, fallback);
  if (!/^[0-2](\.(0|[1-9]\d*))+$/.test(v) || (/^[01]\./.test(v) && Number(v.split('.')[1]) > 39)) {
    throw new ConfigError(name, `must be a dotted object identifier such as 1.3.6.1.4.1.99999.1, got "${v}"`);
  }
  return v;
}

function oneOf<T extends string>(env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const raw = str(env, name, fallback);
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

/**
 * Outside production a missing JWT_SECRET is replaced by a random one kept in the data directory,
 * so that tokens survive restarts and every local process agrees, without a well-known default.
 */
function resolveJwtSecret(env: Env, nodeEnv: Config['nodeEnv'], dataDir: string): string {
  const given = optional(env, 'JWT_SECRET');
  if (nodeEnv === 'production') {
    if (given === undefined) throw new ConfigError('JWT_SECRET', 'must be set in production');
    if (given.length < MIN_PRODUCTION_SECRET_LENGTH) {
      throw new ConfigError('JWT_SECRET', `must be at least ${MIN_PRODUCTION_SECRET_LENGTH} characters in production`);
    }
    if (KNOWN_WEAK_SECRETS.has(given.toLowerCase())) throw new ConfigError('JWT_SECRET', 'is a placeholder value');
    return given;
  }
  if (given !== undefined) return given;
  const file = path.join(dataDir, 'jwt-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
  return secret;
}

/** X.509 name attributes: 1-64 characters (RFC 5280 upper bounds), no control characters. */
function subjectName(env: Env, name: string, fallback: string): string {
  const v = str(env, name, fallback).trim();
  // eslint-disable-next-line no-control-regex
  if (v.length === 0 || [...v].length > 64 || /[\u0000-\u001f\u007f]/.test(v)) {
    throw new ConfigError(name, `must be 1-64 characters without control characters, got "${v}"`);
  }
  return v;
}

function pkiSubjects(env: Env): PkiSubjectConfig {
  const organisation = subjectName(env, 'PKI_ORGANISATION', 'Media Signing Service');
  const country = optional(env, 'PKI_COUNTRY')?.toUpperCase();
  if (country !== undefined && !/^[A-Z]{2}$/.test(country)) throw new ConfigError('PKI_COUNTRY', `must be two letters (ISO 3166), got "${country}"`);
  return {
    organisation,
    country,
    rootCommonName: subjectName(env, 'PKI_ROOT_CN', `${organisation} Root CA`),
    subCaCommonName: subjectName(env, 'PKI_SUB_CA_CN', `${organisation} Issuing CA`),
    leafCommonName: subjectName(env, 'PKI_LEAF_CN', `${organisation} C2PA Signing`),
    tsaCommonName: subjectName(env, 'PKI_TSA_CN', `${organisation} Time Stamping`),
    leafValidityDays: int(env, 'LEAF_VALIDITY_DAYS', 365, 1, 3650),
    ocspCommonName: subjectName(env, 'PKI_OCSP_CN', `${organisation} OCSP Responder`),
    ocspResponderValidityDays: int(env, 'OCSP_RESPONDER_VALIDITY_DAYS', 30, 9, 365),
    identityValidityDays: int(env, 'IDENTITY_VALIDITY_DAYS', 1095, 1, 3650),
  };
}

function chainPrivateKey(env: Env): string | undefined {
  const v = optional(env, 'CHAIN_PRIVATE_KEY');
  if (v === undefined) return undefined;
  // Never echo the value: it is a key.
  if (!/^(0x)?[0-9a-fA-F]{64}$/.test(v)) throw new ConfigError('CHAIN_PRIVATE_KEY', 'must be 32 bytes in hex (64 hex digits, optionally 0x-prefixed)');
  return v.startsWith('0x') ? v : `0x${v}`;
}

function chainId(env: Env, nodeEnv: Config['nodeEnv']): number | undefined {
  const id = optional(env, 'CHAIN_ID') === undefined ? undefined : int(env, 'CHAIN_ID', 0, 1, Number.MAX_SAFE_INTEGER);
  if (id === undefined && nodeEnv === 'production' && optional(env, 'CHAIN_RPC_URL') !== undefined) {
    throw new ConfigError('CHAIN_ID', 'must be set in production with CHAIN_RPC_URL (e.g. 11155111 for Sepolia), so anchors cannot go to the wrong chain');
  }
  return id;
}

function anchorSettings(env: Env): AnchorConfig {
  return {
    batchSize: int(env, 'ANCHOR_BATCH_SIZE', 1000, 1, 10_000),
    batchMaxAgeMs: int(env, 'ANCHOR_BATCH_MAX_AGE_MS', 60_000, 0, 7 * 24 * 3600_000),
    // An external chain can reorganise; the embedded single node cannot.
    confirmations: int(env, 'ANCHOR_CONFIRMATIONS', optional(env, 'CHAIN_RPC_URL') === undefined ? 1 : 3, 1, 10_000),
    pollMs: int(env, 'ANCHOR_POLL_MS', 2000, 50, 600_000),
    resendAfterMs: int(env, 'ANCHOR_RESEND_AFTER_MS', 180_000, 1000, 24 * 3600_000),
    maxInFlight: int(env, 'ANCHOR_MAX_IN_FLIGHT', 16, 1, 1000),
  };
}

function blobStorage(env: Env): BlobStorageConfig | undefined {
  const connectionString = optional(env, 'AZURE_STORAGE_CONNECTION_STRING');
  const accountUrl = url(env, 'AZURE_STORAGE_ACCOUNT_URL', undefined, ['https:', 'http:']);
  const container = str(env, 'BLOB_CONTAINER', 'media');
  // Azure's rule: 3-63 lowercase letters, digits and single dashes, starting and ending with a letter or digit.
  if (!/^[a-z0-9](?!.*--)[a-z0-9-]{1,61}[a-z0-9]$/.test(container)) {
    throw new ConfigError('BLOB_CONTAINER', `must be 3-63 lowercase letters, digits and single dashes, got "${container}"`);
  }
  if (connectionString !== undefined && !/(^|;)\s*(AccountName|BlobEndpoint|SharedAccessSignature)=/i.test(connectionString)) {
    // Never echo the value: it holds the account key.
    throw new ConfigError('AZURE_STORAGE_CONNECTION_STRING', 'is not an Azure Storage connection string (AccountName=...;AccountKey=... or BlobEndpoint=...)');
  }
  if (connectionString === undefined && accountUrl === undefined) return undefined;
  return { connectionString, accountUrl, container };
}

const MiB = 1024 * 1024;

/**
 * Per-kind upload limits. Video (MP4, M4V, MOV; AVI has a bound of its own, shared/media/formats/avi.ts) and audio
 * (M4A, WAV, MP3, FLAC) are signed in bounded memory whatever their size (shared/c2pa/bmff-sign.ts,
 * data-hash-sign.ts), so their limits are the disk's and the network's: 8 GiB for video and 4 GiB for audio by default.
 * Neither design stops anywhere below 1 TiB; a format's own bound (a WAV's 4 GiB: RIFF sizes are 32-bit) is its
 * descriptor's, refused at upload whatever the setting.
 */
function mediaUploadLimits(env: Env): Pick<Config, 'maxUploadBytesVideo' | 'maxUploadBytesAudio'> {
  return {
    maxUploadBytesVideo: int(env, 'MAX_UPLOAD_BYTES_VIDEO', 8 * 1024 * MiB, 1, 2 ** 40),
    maxUploadBytesAudio: int(env, 'MAX_UPLOAD_BYTES_AUDIO', 4 * 1024 * MiB, 1, 2 ** 40),
  };
}

/** The upload limit for a kind of media (images, and anything unknown, keep MAX_UPLOAD_BYTES). */
export function uploadLimitFor(config: Pick<Config, 'maxUploadBytes' | 'maxUploadBytesVideo' | 'maxUploadBytesAudio'>, kind: string): number {
  if (kind === 'video') return config.maxUploadBytesVideo;
  if (kind === 'audio') return config.maxUploadBytesAudio;
  return config.maxUploadBytes;
}

/** The largest of the upload limits: how much an upload may stream to disk before its format is known. */
export function largestUploadLimit(config: Pick<Config, 'maxUploadBytes' | 'maxUploadBytesVideo' | 'maxUploadBytesAudio'>): number {
  return Math.max(config.maxUploadBytes, config.maxUploadBytesVideo, config.maxUploadBytesAudio);
}

function host(env: Env, name: string, fallback: string): string {
  const v = str(env, name, fallback);
  if (!/^[A-Za-z0-9.:-]+$/.test(v)) throw new ConfigError(name, `must be a host name or IP address, got "${v}"`);
  return v;
}

/** TRUST_LISTS: a comma-separated set of the shipped lists; `official` must stay (interim alone is a frozen legacy list). */
function trustLists(env: Env): TrustListName[] {
  const raw = str(env, 'TRUST_LISTS', 'official,interim');
  const names = [...new Set(raw.split(',').map((n) => n.trim().toLowerCase()).filter(Boolean))];
  const unknown = names.filter((n) => !(TRUST_LIST_NAMES as readonly string[]).includes(n));
  if (unknown.length > 0) throw new ConfigError('TRUST_LISTS', `names an unknown list: ${unknown.join(', ')} (known: ${TRUST_LIST_NAMES.join(', ')})`);
  if (!names.includes('official')) throw new ConfigError('TRUST_LISTS', 'must include official (the interim list is frozen and only adds to it)');
  return TRUST_LIST_NAMES.filter((n) => names.includes(n));
}

function trustListsDir(env: Env): string | undefined {
  const dir = optional(env, 'TRUST_LISTS_DIR');
  if (dir === undefined) return undefined;
  if (!existsSync(path.join(dir, PINS_FILE))) throw new ConfigError('TRUST_LISTS_DIR', `${dir} holds no pins.json (copy trust/lists there, then \`npm run trust -- update --dir\`)`);
  return path.resolve(dir);
}

/** An operator's trust file (its certificates are read, and checked, with the trust lists). */
function trustFile(env: Env, name: 'TRUST_ANCHORS_FILE' | 'TRUST_ALLOWED_FILE' | 'TRUST_TSA_ANCHORS_FILE' | 'CAWG_TRUST_ANCHORS_FILE'): string | undefined {
  const file = optional(env, name);
  if (file === undefined) return undefined;
  if (!existsSync(file)) throw new ConfigError(name, `${file} does not exist`);
  return path.resolve(file);
}

/** REMOTE_MANIFESTS and its test-only companions: private addresses are never allowed in production. */
function remoteManifests(env: Env, nodeEnv: Config['nodeEnv'], baseUrl: string): RemoteManifestsConfig {
  const enabled = oneOf(env, 'REMOTE_MANIFESTS', 'on', ['on', 'off'] as const) === 'on';
  const allowPrivate = bool(env, 'REMOTE_MANIFESTS_ALLOW_PRIVATE', false);
  if (allowPrivate && nodeEnv === 'production') {
    throw new ConfigError('REMOTE_MANIFESTS_ALLOW_PRIVATE', 'is for tests and development only: in production a remote manifest is fetched from public addresses only');
  }
  const caFile = optional(env, 'REMOTE_MANIFESTS_CA_FILE');
  if (caFile !== undefined && !existsSync(caFile)) throw new ConfigError('REMOTE_MANIFESTS_CA_FILE', `${caFile} does not exist`);
  return {
    enabled,
    ownOrigin: new URL(baseUrl).origin,
    allowPrivate,
    caFile: caFile === undefined ? undefined : path.resolve(caFile),
    maxBytes: int(env, 'REMOTE_MANIFESTS_MAX_BYTES', 16 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    concurrency: int(env, 'REMOTE_MANIFESTS_CONCURRENCY', 8, 1, 1000),
    perAddress: int(env, 'REMOTE_MANIFESTS_PER_ADDRESS', 10, 1, 100_000),
    perHost: int(env, 'REMOTE_MANIFESTS_PER_HOST', 60, 1, 100_000),
    cacheSeconds: int(env, 'REMOTE_MANIFESTS_CACHE_SECONDS', 600, 0, 86_400),
    cacheBytes: int(env, 'REMOTE_MANIFESTS_CACHE_BYTES', 64 * 1024 * 1024, 0, 4 * 1024 * 1024 * 1024),
  };
}

/** WEBHOOK_SECRET_KEY: 32 bytes, as 64 hex digits or base64. */
function webhookSecretKey(env: Env): Buffer | undefined {
  const raw = optional(env, 'WEBHOOK_SECRET_KEY');
  if (raw === undefined) return undefined;
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  // Never echo the value: it is a key.
  if (key.length !== 32) throw new ConfigError('WEBHOOK_SECRET_KEY', 'must be 32 bytes, as 64 hex digits or base64');
  return key;
}

/**
 * WEBHOOK_ALLOW_PRIVATE lifts the SSRF guard for webhook endpoints (private, loopback and link-local addresses, and
 * plain http): in production only when WEBHOOK_ALLOW_PRIVATE_IN_PRODUCTION=true says so as well, and then warned
 * about at every start (startupWarnings).
 */
function ocspStapling(env: Env, nodeEnv: Config['nodeEnv']): OcspStaplingConfig {
  const allowPrivate = bool(env, 'OCSP_STAPLE_ALLOW_PRIVATE', false);
  if (allowPrivate && nodeEnv === 'production') {
    throw new ConfigError('OCSP_STAPLE_ALLOW_PRIVATE', 'is for tests and development: in production external OCSP responders are reached on public addresses only');
  }
  return { enabled: bool(env, 'OCSP_STAPLING', true), timeoutMs: int(env, 'OCSP_STAPLE_TIMEOUT_MS', 3000, 100, 60_000), allowPrivate };
}

function webhookAllowPrivate(env: Env, nodeEnv: Config['nodeEnv']): boolean {
  const allowPrivate = bool(env, 'WEBHOOK_ALLOW_PRIVATE', false);
  if (allowPrivate && nodeEnv === 'production' && !bool(env, 'WEBHOOK_ALLOW_PRIVATE_IN_PRODUCTION', false)) {
    throw new ConfigError(
      'WEBHOOK_ALLOW_PRIVATE',
      'is for tests and development: in production it lets webhook endpoints reach private, loopback and link-local addresses over plain http; set WEBHOOK_ALLOW_PRIVATE_IN_PRODUCTION=true as well if that is really meant',
    );
  }
  return allowPrivate;
}

function webhookSettings(env: Env, nodeEnv: Config['nodeEnv']): WebhookConfig {
  return {
    allowPrivate: webhookAllowPrivate(env, nodeEnv),
    maxEndpoints: int(env, 'MAX_WEBHOOK_ENDPOINTS', 20, 1, 10_000),
    secretKey: webhookSecretKey(env),
    secretGraceHours: int(env, 'WEBHOOK_SECRET_GRACE_HOURS', 24, 0, 24 * 30),
    timeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    // 15 attempts from 5 s, doubling: the last retry comes about 23 hours after the first attempt.
    attempts: int(env, 'WEBHOOK_ATTEMPTS', 15, 1, 30),
    backoffMs: int(env, 'WEBHOOK_BACKOFF_MS', 5000, 0, 3600_000),
    disableAfterHours: int(env, 'WEBHOOK_DISABLE_AFTER_HOURS', 72, 0, 24 * 365),
    concurrency: int(env, 'WEBHOOK_CONCURRENCY', 8, 1, 256),
    relayIntervalMs: int(env, 'WEBHOOK_RELAY_INTERVAL_MS', 1000, 50, 600_000),
    certificateExpiringDays: int(env, 'WEBHOOK_CERT_EXPIRING_DAYS', 30, 1, 365),
  };
}

export function loadConfig(env: Env = process.env): Config {
  const nodeEnv = oneOf(env, 'NODE_ENV', 'development', ['development', 'test', 'production'] as const);
  const port = int(env, 'PORT', 3000, 0, 65535);
  const ocspPort = int(env, 'OCSP_PORT', 3001, 0, 65535);
  const crlPort = int(env, 'CRL_PORT', 3002, 0, 65535);
  const tsaPort = int(env, 'TSA_PORT', 3003, 0, 65535);
  const dataDir = path.resolve(str(env, 'DATA_DIR', './data'));
  const http = ['http:', 'https:'];
  const baseUrl = url(env, 'BASE_URL', `http://localhost:${port}`, http)!;
  return {
    nodeEnv,
    port,
    ocspPort,
    crlPort,
    tsaPort,
    baseUrl,
    ocspUrl: url(env, 'OCSP_URL', `http://localhost:${ocspPort}`, http)!,
    crlUrl: url(env, 'CRL_URL', `http://localhost:${crlPort}`, http)!,
    tsaUrl: url(env, 'TSA_URL', `http://localhost:${tsaPort}`, http)!,
    tsaTimeoutMs: int(env, 'TSA_TIMEOUT_MS', 10_000, 100, 120_000),
    tsaPolicyOid: oid(env, 'TSA_POLICY_OID', DEFAULT_TSA_POLICY_OID),
    signWithoutTimestamp: bool(env, 'SIGN_WITHOUT_TIMESTAMP', false),
    ocspStapling: ocspStapling(env, nodeEnv),
    databaseUrl: url(env, 'DATABASE_URL', undefined, ['postgres:', 'postgresql:']),
    redisUrl: url(env, 'REDIS_URL', 'redis://127.0.0.1:6379', ['redis:', 'rediss:'])!,
    queuePrefix: str(env, 'QUEUE_PREFIX', 'mss'),
    dataDir,
    cloudVaultUrl: url(env, 'CLOUD_VAULT_URL', undefined, ['https:']),
    leafKeyName: str(env, 'LEAF_KEY_NAME', 'leaf-signing'),
    subCaKeyName: str(env, 'SUB_CA_KEY_NAME', 'sub-ca'),
    rootKeyName: str(env, 'ROOT_KEY_NAME', 'root-ca'),
    tsaKeyName: str(env, 'TSA_KEY_NAME', 'tsa-signing'),
    audit: {
      keyName: str(env, 'AUDIT_KEY_NAME', 'audit-checkpoint'),
      origin: auditOrigin(env, baseUrl),
      checkpointSeconds: int(env, 'AUDIT_CHECKPOINT_SECONDS', 60, 1, 86_400),
    },
    ocspKeyName: str(env, 'OCSP_KEY_NAME', 'ocsp-responder'),
    jwtSecret: resolveJwtSecret(env, nodeEnv, dataDir),
    logLevel: oneOf(env, 'LOG_LEVEL', nodeEnv === 'test' ? 'warn' : 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const),
    chainRpcUrl: url(env, 'CHAIN_RPC_URL', undefined, ['http:', 'https:']),
    chainPrivateKey: chainPrivateKey(env),
    chainId: chainId(env, nodeEnv),
    chainPort: int(env, 'CHAIN_PORT', 8545, 0, 65535),
    anchor: anchorSettings(env),
    blobStorage: blobStorage(env),
    maxUploadBytes: int(env, 'MAX_UPLOAD_BYTES', 50 * 1024 * 1024, 1, 2 ** 40),
    ...mediaUploadLimits(env),
    workerConcurrency: int(env, 'WORKER_CONCURRENCY', 2, 1, 256),
    // 200 MP: Samsung's 200 MP phone mode (16320 x 12240) and every medium-format back (Phase One IQ4 150 MP) fit.
    maxImagePixels: int(env, 'MAX_IMAGE_PIXELS', 200_000_000, 1, 2 ** 32),
    verifyPoolSize: int(env, 'VERIFY_POOL_SIZE', 2, 1, 64),
    verifyQueueLimit: int(env, 'VERIFY_QUEUE_LIMIT', 8, 0, 10_000),
    verifyRecycleBytes: int(env, 'VERIFY_RECYCLE_BYTES', 512 * MiB, 64 * MiB, 64 * 1024 * MiB),
    uploadCheckPoolSize: int(env, 'UPLOAD_CHECK_POOL_SIZE', 1, 1, 64),
    workerRecycleWasmBytes: int(env, 'WORKER_RECYCLE_WASM_BYTES', 512 * MiB, 0, 4 * 1024 * MiB),
    workerRecycleIdleMs: int(env, 'WORKER_RECYCLE_IDLE_MS', 30_000, 0, 24 * 3600_000),
    ffmpegPath: str(env, 'FFMPEG_PATH', 'ffmpeg') === 'off' ? undefined : str(env, 'FFMPEG_PATH', 'ffmpeg'),
    pdftoppmPath: str(env, 'PDFTOPPM_PATH', 'pdftoppm') === 'off' ? undefined : str(env, 'PDFTOPPM_PATH', 'pdftoppm'),
    fingerprintMode: oneOf(env, 'FINGERPRINT_MODE', 'fast', FINGERPRINT_MODES),
    c2paSpecVersion: oneOf(env, 'C2PA_SPEC_VERSION', DEFAULT_C2PA_SPEC_VERSION, C2PA_SPEC_VERSIONS),
    signAttempts: int(env, 'SIGN_ATTEMPTS', 5, 1, 50),
    signBackoffMs: int(env, 'SIGN_BACKOFF_MS', 2000, 0, 600_000),
    workerLockMs: int(env, 'WORKER_LOCK_MS', 30_000, 2000, 600_000),
    crlSchedule: str(env, 'CRL_SCHEDULE', '0 3 * * 1'),
    reconcileIntervalMs: int(env, 'RECONCILE_INTERVAL_MS', 30_000, 100, 24 * 3600_000),
    maxRenditionFragments: int(env, 'MAX_RENDITION_FRAGMENTS', 10_000, 1, 100_000),
    uploadExpiryHours: int(env, 'UPLOAD_EXPIRY_HOURS', 24, 1, 720),
    uploadSweepIntervalMs: int(env, 'UPLOAD_SWEEP_INTERVAL_MS', 15 * 60_000, 1000, 24 * 3600_000),
    opsPort: int(env, 'OPS_PORT', 3004, 0, 65535),
    opsHost: host(env, 'OPS_HOST', '127.0.0.1'),
    pki: pkiSubjects(env),
    ocspUnissuedStatus: oneOf(env, 'OCSP_UNISSUED_STATUS', 'good', ['good', 'unknown'] as const),
    ocspProcesses: int(env, 'OCSP_PROCESSES', 1, 0, 64),
    authRateLimit: int(env, 'AUTH_RATE_LIMIT', 20, 1, 1_000_000),
    publicRateLimit: int(env, 'PUBLIC_RATE_LIMIT', 30, 1, 1_000_000),
    loginFailureLimit: int(env, 'LOGIN_FAILURE_LIMIT', 10, 1, 1_000_000),
    maxPendingCertificateRequests: int(env, 'MAX_PENDING_CERTIFICATE_REQUESTS', 5, 1, 1000),
    publicConcurrencyPerAddress: int(env, 'PUBLIC_CONCURRENCY_PER_ADDRESS', 2, 1, 1000),
    // bcryptjs is pure JS: 12 rounds is about a quarter second; production may not go below 10.
    bcryptRounds: int(env, 'BCRYPT_ROUNDS', 12, nodeEnv === 'production' ? 10 : 4, 15),
    // One core is left to the event loop (and the verification pool's processes).
    passwordThreads: int(env, 'PASSWORD_THREADS', Math.max(1, Math.min(4, availableParallelism() - 1)), 1, 64),
    passwordChecksMax: int(env, 'PASSWORD_CHECKS_MAX', 32, 1, 100_000),
    trustProxyHops: int(env, 'TRUST_PROXY_HOPS', 0, 0, 10),
    trustLists: trustLists(env),
    trustListsDir: trustListsDir(env),
    trustAnchorsFile: trustFile(env, 'TRUST_ANCHORS_FILE'),
    trustAllowedFile: trustFile(env, 'TRUST_ALLOWED_FILE'),
    trustTsaAnchorsFile: trustFile(env, 'TRUST_TSA_ANCHORS_FILE'),
    cawgTrustAnchorsFile: trustFile(env, 'CAWG_TRUST_ANCHORS_FILE'),
    trustReloadSeconds: int(env, 'TRUST_RELOAD_SECONDS', 60, 1, 24 * 3600),
    remoteManifests: remoteManifests(env, nodeEnv, baseUrl),
    webhooks: webhookSettings(env, nodeEnv),
  };
}

/** What a process says at start about settings in effect that weaken it (shared/run-main.ts logs each at warn). */
export function startupWarnings(config: Pick<Config, 'nodeEnv' | 'webhooks'>): { variable: string; message: string }[] {
  const warnings: { variable: string; message: string }[] = [];
  if (config.nodeEnv === 'production' && config.webhooks.allowPrivate) {
    warnings.push({
      variable: 'WEBHOOK_ALLOW_PRIVATE',
      message:
        'WEBHOOK_ALLOW_PRIVATE is on in production (WEBHOOK_ALLOW_PRIVATE_IN_PRODUCTION=true): webhook endpoints may be on private, loopback and link-local addresses (the cloud metadata service, internal admin pages) and use plain http',
    });
  }
  return warnings;
}

/** The audit log's checkpoint origin (AUDIT_LOG_ORIGIN): by default BASE_URL's host and path, then /audit. */
function auditOrigin(env: Env, baseUrl: string): string {
  const given = env.AUDIT_LOG_ORIGIN;
  if (given !== undefined && given !== '') {
    if (!/^[\x21-\x7e]+$/.test(given)) throw new ConfigError('AUDIT_LOG_ORIGIN', 'must be one word of printable ASCII (a checkpoint origin line), e.g. signing.example.com/audit');
    return given;
  }
  const u = new URL(baseUrl);
  return `${u.host}${u.pathname.replace(/\/$/, '')}/audit`;
}
