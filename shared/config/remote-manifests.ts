/** Fetching files' remote manifests for verification (REMOTE_MANIFESTS and its companions). */
import { bool, ConfigError, existingFile, int, oneOf, type Env, type NodeEnv } from './parse.js';

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

/** REMOTE_MANIFESTS and its test-only companions: private addresses are never allowed in production. */
export function remoteManifestsSettings(env: Env, nodeEnv: NodeEnv, baseUrl: string): RemoteManifestsConfig {
  const enabled = oneOf(env, 'REMOTE_MANIFESTS', 'on', ['on', 'off'] as const) === 'on';
  const allowPrivate = bool(env, 'REMOTE_MANIFESTS_ALLOW_PRIVATE', false);
  if (allowPrivate && nodeEnv === 'production') {
    throw new ConfigError('REMOTE_MANIFESTS_ALLOW_PRIVATE', 'is for tests and development only: in production a remote manifest is fetched from public addresses only');
  }
  return {
    enabled,
    ownOrigin: new URL(baseUrl).origin,
    allowPrivate,
    caFile: existingFile(env, 'REMOTE_MANIFESTS_CA_FILE'),
    maxBytes: int(env, 'REMOTE_MANIFESTS_MAX_BYTES', 16 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    concurrency: int(env, 'REMOTE_MANIFESTS_CONCURRENCY', 8, 1, 1000),
    perAddress: int(env, 'REMOTE_MANIFESTS_PER_ADDRESS', 10, 1, 100_000),
    perHost: int(env, 'REMOTE_MANIFESTS_PER_HOST', 60, 1, 100_000),
    cacheSeconds: int(env, 'REMOTE_MANIFESTS_CACHE_SECONDS', 600, 0, 86_400),
    cacheBytes: int(env, 'REMOTE_MANIFESTS_CACHE_BYTES', 64 * 1024 * 1024, 0, 4 * 1024 * 1024 * 1024),
  };
}
