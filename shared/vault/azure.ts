import { createHash, createPublicKey } from 'node:crypto';
import type { TokenCredential } from '@azure/core-auth';
import type { CryptographyClient, KeyClient, KeyClientOptions, KeyVaultKey } from '@azure/keyvault-keys';
import { azureCredential } from '../azure-credential.js';
import { type KeyVault, type VaultKey, VaultKeyNotFoundError, VaultUnavailableError } from './types.js';

/** Azure's key-name rule (and LocalKeyVault's): 1-127 letters, digits and dashes. */
const KEY_NAME = /^[A-Za-z0-9-]{1,127}$/;

/** ES384 over P-384: raw r||s, 48 bytes each. */
const ES384_SIGNATURE_BYTES = 96;

/**
 * SDK retry settings used unless the caller passes its own `retryOptions`.
 *
 * The SDK default is 3 retries starting at 1 s with exponential back-off and jitter (up to ~7 s of sleeping for
 * a vault that refuses connections). Here: 2 retries at 0.5 s and 1 s (each with up to 50 % jitter off), so a
 * refused connection fails after about 1.5 s. Retries apply to connection errors (ECONNREFUSED, ECONNRESET,
 * ETIMEDOUT, ENOTFOUND, ...), 408, 5xx (except 501/505) and 429 (which honours Retry-After).
 */
export const DEFAULT_RETRY_OPTIONS = { maxRetries: 2, retryDelayInMs: 500, maxRetryDelayInMs: 2_000 } as const;

/**
 * Upper bound for one vault operation, including SDK retries and obtaining a token. A vault that accepts the
 * connection but never answers (firewall black hole, hung proxy) would otherwise wait for the operating system's
 * TCP timeout, which is minutes.
 */
export const DEFAULT_OPERATION_TIMEOUT_MS = 10_000;

export interface AzureKeyVaultOptions extends KeyClientOptions {
  /** See DEFAULT_OPERATION_TIMEOUT_MS. */
  operationTimeoutMs?: number;
}

/** What AzureKeyVault hands out: a VaultKey pinned to one version of the key in the vault. */
export interface AzureVaultKey extends VaultKey {
  /** Full key identifier, `https://<vault>/keys/<name>/<version>`. */
  readonly keyId: string;
  readonly version: string;
}

type Action = 'read' | 'create' | 'sign with';

interface RestErrorLike {
  name: string;
  message: string;
  statusCode?: number;
  code?: string;
}

function isRestError(err: unknown): err is RestErrorLike {
  return err instanceof Error && err.name === 'RestError';
}

/**
 * Azure Key Vault driver over `@azure/keyvault-keys`. Keys are EC P-384 (keyOps sign/verify); the private half
 * never leaves the vault, and every signature is one REST call (the SDK never signs locally with EC keys).
 *
 * The SDK (and @azure/identity when no credential is given) is imported by load(), which the first call runs: a
 * process on the local vault never loads it. Roles call load() at their start, so that a setting the SDK refuses
 * stops the start.
 *
 * Caching: a key is read once per name and process and then pinned to that version (its public key is what the
 * certificates carry, so signing must keep using it). Its CryptographyClient is made once, on first use, and
 * reused. Rotating a key in the vault therefore takes effect when the processes restart, together with the new
 * certificate. Failed reads are not cached.
 *
 * Errors: an absent key is VaultKeyNotFoundError. Everything else that goes wrong talking to the vault (refused or
 * dropped connections, DNS, timeouts, 5xx, throttling, 401/403, credential failures) is VaultUnavailableError,
 * after the SDK's own retries (see DEFAULT_RETRY_OPTIONS, DEFAULT_OPERATION_TIMEOUT_MS), so it arrives within
 * seconds. Callers should treat it as transient: let the job fail and be retried with back-off (BullMQ attempts),
 * keep serving what was signed before (OCSP responses, CRLs) and try again on the next round, and report the
 * vault as down in health checks. A 401/403 will not heal by retrying; its message says so.
 */
export class AzureKeyVault implements KeyVault {
  readonly kind = 'azure';
  readonly vaultUrl: string;
  private readonly host: string;
  private readonly credential: TokenCredential | undefined;
  private readonly clientOptions: KeyClientOptions;
  private client: Promise<KeyClient> | undefined;
  private readonly operationTimeoutMs: number;
  /** Resolved keys and reads in flight, by name. */
  private readonly keys = new Map<string, Promise<AzureVaultKey>>();
  /** ensureKey calls in flight, by name, so that one process creates a missing key once. */
  private readonly ensuring = new Map<string, Promise<AzureVaultKey>>();

  /** `credential`: DefaultAzureCredential when absent. */
  constructor(vaultUrl: string, credential: TokenCredential | undefined, options: AzureKeyVaultOptions = {}) {
    let parsed: URL;
    try {
      parsed = new URL(vaultUrl);
    } catch {
      throw new Error(`Azure Key Vault address "${vaultUrl}" is not a valid URL`);
    }
    if (parsed.protocol !== 'https:') throw new Error(`Azure Key Vault address must use https:, got ${parsed.protocol}`);
    this.vaultUrl = `${parsed.protocol}//${parsed.host}`;
    this.host = parsed.host;
    const { operationTimeoutMs, ...clientOptions } = options;
    this.operationTimeoutMs = operationTimeoutMs ?? DEFAULT_OPERATION_TIMEOUT_MS;
    this.credential = credential;
    this.clientOptions = clientOptions;
  }

  /** Imports the SDK and makes the client, without I/O: what a bad setting for the SDK fails at. */
  async load(): Promise<void> {
    await this.keyClient();
  }

  /** The SDK's client, made once (again after a failure). */
  private keyClient(): Promise<KeyClient> {
    if (!this.client) {
      this.client = (async () => {
        const [{ KeyClient }, credential] = await Promise.all([import('@azure/keyvault-keys'), azureCredential(this.credential)]);
        // The SDK writes into the options object it is given (userAgentOptions), so it gets its own copy.
        return new KeyClient(this.vaultUrl, credential, {
          ...this.clientOptions,
          retryOptions: { ...DEFAULT_RETRY_OPTIONS, ...this.clientOptions.retryOptions },
        });
      })();
      this.client.catch(() => (this.client = undefined));
    }
    return this.client;
  }

  getKey(name: string): Promise<VaultKey> {
    return this.getAzureKey(name);
  }

  ensureKey(name: string): Promise<VaultKey> {
    return this.ensureAzureKey(name);
  }

  /** getKey with the pinned key identifier and version visible. */
  getAzureKey(name: string): Promise<AzureVaultKey> {
    if (!KEY_NAME.test(name)) return Promise.reject(invalidName(name));
    let pending = this.keys.get(name);
    if (!pending) {
      pending = this.call(name, 'read', async (abortSignal) => (await this.keyClient()).getKey(name, { abortSignal })).then((key) =>
        this.toVaultKey(name, key),
      );
      this.keys.set(name, pending);
      pending.catch(() => {
        if (this.keys.get(name) === pending) this.keys.delete(name);
      });
    }
    return pending;
  }

  /**
   * ensureKey with the pinned key identifier and version visible.
   *
   * Creates the key only when reading it says it does not exist. Key Vault has no create-if-absent: a create on
   * an existing name adds a new version. Within this process concurrent calls share one attempt; two processes
   * bootstrapping the same name at the same moment can still add two versions (each then pins its own, and later
   * readers get the newest), so create keys once, at set-up, before starting several processes.
   */
  ensureAzureKey(name: string): Promise<AzureVaultKey> {
    if (!KEY_NAME.test(name)) return Promise.reject(invalidName(name));
    let pending = this.ensuring.get(name);
    if (!pending) {
      pending = this.getAzureKey(name)
        .catch(async (err: unknown) => {
          if (!(err instanceof VaultKeyNotFoundError)) throw err;
          const created = await this.call(name, 'create', async (abortSignal) =>
            (await this.keyClient()).createEcKey(name, { curve: 'P-384', keyOps: ['sign', 'verify'], abortSignal }),
          );
          const key = this.toVaultKey(name, created);
          this.keys.set(name, Promise.resolve(key));
          return key;
        })
        .finally(() => this.ensuring.delete(name));
      this.ensuring.set(name, pending);
    }
    return pending;
  }

  private toVaultKey(name: string, key: KeyVaultKey): AzureVaultKey {
    const jwk = key.key;
    const keyId = key.id;
    const version = key.properties.version;
    if (!jwk || !keyId || !version) {
      throw new VaultUnavailableError(`Azure Key Vault ${this.host} returned key "${name}" without key material or identifier`);
    }
    if ((jwk.kty !== 'EC' && jwk.kty !== 'EC-HSM') || jwk.crv !== 'P-384' || !jwk.x || !jwk.y) {
      // Not transient: somebody created a different kind of key under this name.
      const found = [jwk.kty, jwk.crv].filter(Boolean).join(' ') || 'of unknown type';
      throw new Error(`key "${name}" in Azure Key Vault ${this.host} is ${found}, not an EC P-384 key`);
    }
    const publicKeySpki = new Uint8Array(
      createPublicKey({
        key: { kty: 'EC', crv: 'P-384', x: Buffer.from(jwk.x).toString('base64url'), y: Buffer.from(jwk.y).toString('base64url') },
        format: 'jwk',
      }).export({ type: 'spki', format: 'der' }),
    );

    let crypto: CryptographyClient | undefined;
    const signEs384 = async (data: Uint8Array): Promise<Uint8Array> => {
      const digest = createHash('sha384').update(data).digest();
      // Shares the KeyClient's pipeline (connections, challenge state, token) and is pinned to this version.
      crypto ??= (await this.keyClient()).getCryptographyClient(name, { keyVersion: version });
      const client = crypto;
      const result = await this.call(name, 'sign with', (abortSignal) => client.sign('ES384', digest, { abortSignal }));
      if (result.result.length !== ES384_SIGNATURE_BYTES) {
        throw new VaultUnavailableError(
          `Azure Key Vault ${this.host} returned a ${result.result.length}-byte ES384 signature for key "${name}", expected ${ES384_SIGNATURE_BYTES} (raw r||s)`,
        );
      }
      return new Uint8Array(result.result);
    };
    return { name, keyId, version, publicKeySpki, signEs384 };
  }

  /** Runs one SDK operation under the operation deadline and maps its failures. */
  private async call<T>(name: string, action: Action, op: (abortSignal: AbortSignal) => Promise<T>): Promise<T> {
    const signal = AbortSignal.timeout(this.operationTimeoutMs);
    try {
      return await op(signal);
    } catch (err) {
      throw this.mapError(err, name, action, signal.aborted);
    }
  }

  private mapError(err: unknown, name: string, action: Action, timedOut: boolean): Error {
    const what = `Azure Key Vault ${this.host}: could not ${action} key "${name}"`;
    if (err instanceof VaultKeyNotFoundError || err instanceof VaultUnavailableError) return err;
    if (isRestError(err) && err.statusCode === 404) {
      // A key (or the pinned version) that disappeared must be read afresh next time.
      this.keys.delete(name);
      return new VaultKeyNotFoundError(name);
    }
    if (timedOut) {
      return new VaultUnavailableError(`${what}: no answer within ${this.operationTimeoutMs} ms; retry later`, { cause: err });
    }
    if (isRestError(err)) {
      const status = err.statusCode;
      if (status === undefined) {
        return new VaultUnavailableError(`${what}: vault unreachable (${err.code ?? 'network error'}: ${oneLine(err.message)}); retry later`, {
          cause: err,
        });
      }
      const hint =
        status === 401 || status === 403
          ? '; check the identity and its key permissions (get, create, sign), retrying will not help'
          : '; retry later';
      return new VaultUnavailableError(`${what}: vault answered ${status}${err.code ? ` ${err.code}` : ''}: ${oneLine(err.message)}${hint}`, {
        cause: err,
      });
    }
    if (err instanceof Error && /Credential|Authentication/.test(err.name)) {
      // Identity errors list every credential tried and why it failed; that is what an operator needs to see.
      return new VaultUnavailableError(`${what}: no access token (${err.name}: ${flatten(err.message)})`, { cause: err });
    }
    const detail = err instanceof Error ? `${err.name}: ${oneLine(err.message)}` : String(err);
    return new VaultUnavailableError(`${what}: ${detail}`, { cause: err });
  }
}

function invalidName(name: string): Error {
  return new Error(`invalid key name "${name}": use 1-127 letters, digits and dashes`);
}

/** A multi-line message on one line, bounded. */
function flatten(message: string): string {
  const flat = message.trim().split(/\s*\n\s*/).join(' | ');
  return flat.length > 1500 ? `${flat.slice(0, 1500)}...` : flat;
}

/** First line of a message, bounded, so that multi-line SDK errors stay readable in logs. */
function oneLine(message: string): string {
  const first = message.split('\n', 1)[0]!.trim();
  return first.length > 300 ? `${first.slice(0, 300)}...` : first;
}
