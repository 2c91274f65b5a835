/** Base class for failures of the C2PA library (c2pa-rs said no, or the file cannot be processed). */
export class C2paError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
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
