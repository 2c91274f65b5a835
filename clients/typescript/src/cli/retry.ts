import { ApiError } from '../index.js';

const ATTEMPTS = 5;
/** fetch's network failures (in its TypeError's cause) that another try may not meet. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

function isTransient(err: unknown): boolean {
  if (err instanceof ApiError) return err.transient;
  const code = (err as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return err instanceof TypeError && typeof code === 'string' && NETWORK_CODES.has(code);
}

/** Network failures (a refused or reset connection) and answers the service marks as temporary (429, 502-504) are tried again, up to 5 times. */
export async function withRetries<T>(step: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await step();
    } catch (err) {
      if (!isTransient(err) || attempt >= ATTEMPTS) throw err;
      const seconds = err instanceof ApiError && err.retryAfterSeconds !== undefined ? err.retryAfterSeconds : Math.min(15, 2 ** (attempt - 1));
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    }
  }
}

/** One line for an error: the service's code and message, or what failed on the way (fetch hides it in `cause`). */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  if (err instanceof Error) {
    const cause = (err as Error & { cause?: { code?: string; message?: string } }).cause;
    return cause?.code ?? cause?.message ? `${err.message} (${cause.code ?? cause.message})` : err.message;
  }
  return String(err);
}
