/**
 * The time-stamp authority's core: a DER TimeStampReq in, a DER TimeStampResp out. `respond` never throws:
 * whatever goes wrong becomes an RFC 3161 rejection with the fitting failure info, and is logged when it is
 * the service's fault rather than the client's.
 *
 * One vault signature per token (ES384). Signatures in flight are bounded (a slow vault must not pile up
 * unbounded work); beyond the queue the answer is a systemFailure rejection at once, which a client retries.
 */
import type { Logger } from 'pino';
import { ServiceError, type ErrorKind } from '../errors.js';
import {
  encodeGrantedResponse,
  encodeRejection,
  parseTimeStampRequest,
  TimeStampRequestError,
  type PkiFailureInfo,
  type TimeStampRequest,
} from './protocol.js';
import { issueTimeStampToken, prepareTsaSigner, type PreparedTsaSigner, type TsaIdentity } from './token.js';

/** There is no valid, unrevoked time-stamping certificate to sign with (run `npm run pki -- init`). */
export class NoTsaCertificateError extends ServiceError {
  constructor(message = 'the service has no valid time-stamping certificate: run `npm run pki -- init` or `rotate-tsa`') {
    super('unavailable', 'no_tsa_certificate', message, { publicMessage: 'the TSA has no valid certificate' });
    this.name = 'NoTsaCertificateError';
  }
}

export interface TsaAnswer {
  der: Uint8Array;
  granted: boolean;
  failInfo?: PkiFailureInfo;
  /** TSTInfo serial of a granted token. */
  serialHex?: string;
  genTime?: Date;
}

export interface TimeStampAuthorityOptions {
  /** The current signer; cached by the caller (see cachedTsaIdentity). Throw NoTsaCertificateError when none. */
  identity: () => Promise<TsaIdentity>;
  /** TSTInfo.policy, a dotted OID. A request naming another policy is refused (unacceptedPolicy). */
  policy: string;
  accuracySeconds?: number;
  /** Vault signatures at once (default 16) and waiting (default 1000); beyond: systemFailure. */
  maxConcurrentSignatures?: number;
  maxQueuedSignatures?: number;
  logger?: Pick<Logger, 'debug' | 'warn' | 'error'>;
  /** Clock, for tests. */
  now?: () => Date;
}

export function rejection(failInfo: PkiFailureInfo, text: string): TsaAnswer {
  return { der: encodeRejection(failInfo, text), granted: false, failInfo };
}

/** The TSA's edge: the failure info for each kind of error (a TimeStampRequestError names its own). */
export const TSA_FAIL_INFO: Record<ErrorKind, PkiFailureInfo> = {
  invalid: 'badDataFormat',
  unauthenticated: 'badRequest',
  forbidden: 'badRequest',
  not_found: 'badRequest',
  conflict: 'badRequest',
  too_large: 'badDataFormat',
  unsupported: 'badRequest',
  unprocessable: 'badDataFormat',
  rate_limited: 'systemFailure',
  unavailable: 'systemFailure',
  internal: 'systemFailure',
};

/**
 * The rejection for an error: a client's mistake with its own words; an outage (no certificate, the vault) with its
 * public words, and "retry later" when the error says a retry may succeed, logged as a warning; anything else as an
 * internal error, logged as one.
 */
function refusal(err: unknown, logger: TimeStampAuthorityOptions['logger'], what: string): TsaAnswer {
  if (!(err instanceof ServiceError) || err.kind === 'internal') {
    logger?.error({ err }, `TSA ${what} failed`);
    return rejection('systemFailure', 'internal error');
  }
  const failInfo = err instanceof TimeStampRequestError ? err.failInfo : TSA_FAIL_INFO[err.kind];
  if (failInfo === 'systemFailure') logger?.warn({ err: err.message }, `TSA cannot answer (${err.code})`);
  return rejection(failInfo, err.retryAfterSeconds === undefined ? err.publicMessage : `${err.publicMessage}; retry later`);
}

export class TimeStampAuthority {
  private readonly policy: string;
  private readonly maxConcurrent: number;
  private readonly maxQueued: number;
  private readonly now: () => Date;
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private prepared: PreparedTsaSigner | undefined;

  constructor(private readonly options: TimeStampAuthorityOptions) {
    this.policy = options.policy;
    this.maxConcurrent = options.maxConcurrentSignatures ?? 16;
    this.maxQueued = options.maxQueuedSignatures ?? 1000;
    this.now = options.now ?? (() => new Date());
  }

  /** Answers one DER TimeStampReq with a DER TimeStampResp. Never throws. */
  async respond(requestDer: Uint8Array): Promise<TsaAnswer> {
    let request: TimeStampRequest;
    try {
      request = parseTimeStampRequest(requestDer);
    } catch (err) {
      return refusal(err, this.options.logger, 'request parsing');
    }
    if (request.reqPolicy !== undefined && request.reqPolicy !== this.policy) {
      return rejection('unacceptedPolicy', `this TSA issues timestamps under policy ${this.policy} only`);
    }
    if (!this.acquire()) return rejection('systemFailure', 'the TSA is busy; retry shortly');
    await this.slot();
    try {
      const signer = await this.signer();
      const genTime = this.now();
      if (genTime.getTime() >= signer.identity.notAfter.getTime() || genTime.getTime() < signer.identity.notBefore.getTime()) {
        throw new NoTsaCertificateError('the time-stamping certificate is outside its validity period');
      }
      const token = await issueTimeStampToken(signer, {
        request,
        policy: this.policy,
        genTime,
        accuracySeconds: this.options.accuracySeconds,
      });
      this.options.logger?.debug({ serial: token.serialHex, genTime: token.genTime, hash: request.hashAlgorithm }, 'timestamp issued');
      return { der: encodeGrantedResponse(token.der), granted: true, serialHex: token.serialHex, genTime: token.genTime };
    } catch (err) {
      return refusal(err, this.options.logger, 'signing');
    } finally {
      this.release();
    }
  }

  /** The prepared signer for the current identity (re-prepared when the identity object changes). */
  private async signer(): Promise<PreparedTsaSigner> {
    const identity = await this.options.identity();
    if (this.prepared?.identity !== identity) this.prepared = prepareTsaSigner(identity);
    return this.prepared;
  }

  // A counting semaphore: `acquire` reserves a place (running or queued) or refuses; `slot` waits for a turn.
  private reserved = 0;

  private acquire(): boolean {
    if (this.reserved >= this.maxConcurrent + this.maxQueued) return false;
    this.reserved += 1;
    return true;
  }

  private slot(): Promise<void> {
    if (this.running < this.maxConcurrent) {
      this.running += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    this.reserved -= 1;
    const next = this.waiting.shift();
    if (next) next();
    else this.running -= 1;
  }
}

/**
 * Caches the identity a loader returns: reloaded after `maxAgeMs` (so a revocation made by a process whose
 * notice did not arrive still takes effect), once the certificate has expired, after a failed load, and at
 * once on `invalidate()` (a revocation or a new TSA/sub-CA certificate announced by PkiEvents).
 */
export function cachedTsaIdentity(
  load: () => Promise<TsaIdentity>,
  options: { maxAgeMs?: number; now?: () => number } = {},
): { get(): Promise<TsaIdentity>; invalidate(): void } {
  const maxAgeMs = options.maxAgeMs ?? 60_000;
  const now = options.now ?? Date.now;
  let cached: { at: number; identity: Promise<TsaIdentity>; notAfter?: number } | undefined;
  return {
    get() {
      const t = now();
      if (!cached || t - cached.at >= maxAgeMs || (cached.notAfter !== undefined && t >= cached.notAfter)) {
        const entry: { at: number; identity: Promise<TsaIdentity>; notAfter?: number } = { at: t, identity: load() };
        entry.identity.then(
          (identity) => (entry.notAfter = identity.notAfter.getTime()),
          () => {
            if (cached === entry) cached = undefined; // retried on the next request
          },
        );
        cached = entry;
      }
      return cached.identity;
    },
    invalidate() {
      cached = undefined;
    },
  };
}
