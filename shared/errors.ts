/**
 * The service's one error vocabulary (after Boulder's berrors): an error that leaves through an edge says what kind
 * of failure it is and its outward code; each edge maps the kind once, in one table (the HTTP status in
 * api/errors.ts, the sign job's outcome in workers/sign-job/outcome.ts, the OCSP status in ocsp/answers.ts, the
 * RFC 3161 failure info in shared/tsa/authority.ts, the certificate request's code in
 * shared/pki/certificate-requests.ts). Anything else thrown is `internal`: logged, never described to a client.
 *
 * Imports nothing: every folder of shared/ and every role may use it.
 */

export const ERROR_KINDS = [
  /** The request or its content is malformed or breaks a rule (HTTP 400). */
  'invalid',
  /** No valid credentials (401). */
  'unauthenticated',
  /** Credentials valid, the action not allowed (403). */
  'forbidden',
  'not_found',
  /** The state of things does not allow it (a name taken, the last admin) (409). */
  'conflict',
  /** Larger than a limit (413). */
  'too_large',
  /** A format, algorithm or extension the service does not handle (415). */
  'unsupported',
  /** Well formed, but what it describes cannot be processed (422). */
  'unprocessable',
  /** Too many requests from this client (429). */
  'rate_limited',
  /** A dependency (vault, storage, queue, CA) cannot serve now; a retry may succeed (503). */
  'unavailable',
  /** The service's own failure (500). */
  'internal',
] as const;

export type ErrorKind = (typeof ERROR_KINDS)[number];

export interface ServiceErrorOptions {
  cause?: unknown;
  /** What a client or job owner is told when the message is meant for operators (default: the message). */
  publicMessage?: string;
  /** When a retry may succeed: sent as Retry-After by the HTTP edge. */
  retryAfterSeconds?: number;
}

/** An error that knows its kind and outward code. */
export class ServiceError extends Error {
  readonly publicMessage: string;
  readonly retryAfterSeconds?: number;

  constructor(
    readonly kind: ErrorKind,
    /** The outward snake_case code (the API's error.code, a failed job's error_code). */
    readonly code: string,
    message: string,
    options: ServiceErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ServiceError';
    this.publicMessage = options.publicMessage ?? message;
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** The kind of anything thrown: a plain Error (or a non-Error) is internal. */
export function kindOf(err: unknown): ErrorKind {
  return err instanceof ServiceError ? err.kind : 'internal';
}
