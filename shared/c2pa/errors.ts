import { ServiceError } from '../errors.js';

/**
 * Base class for failures of the C2PA library (c2pa-rs said no, or the file cannot be processed). Internal: a sign
 * job retries it, and its public message is what the job's owner reads; reading (api/services/verification.ts) tells
 * a damaged file from unreadable credentials itself.
 */
export class C2paError extends ServiceError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('internal', 'c2pa_error', message, { ...options, publicMessage: `the file could not be signed: ${message}` });
    this.name = 'C2paError';
  }
}

const MAX_DETAIL = 1000;

/**
 * c2pa-wasm throws plain strings such as `C2pa(JumbfNotFound)`, or Debug dumps of whole validation results.
 * Turns them into one bounded line for an error message.
 */
export function describeWasmError(err: unknown): string {
  const raw = typeof err === 'string' ? err : err instanceof Error ? err.message : String(err);
  const line = raw.replace(/\s+/g, ' ').trim();
  return line.length > MAX_DETAIL ? `${line.slice(0, MAX_DETAIL)}...` : line;
}

/** The c2pa-rs error variant name, e.g. "JumbfNotFound" for `C2pa(JumbfNotFound)`. */
export function wasmErrorKind(err: unknown): string | undefined {
  if (typeof err !== 'string') return undefined;
  return /^C2pa\((\w+)/.exec(err)?.[1];
}
