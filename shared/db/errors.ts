/** Postgres unique_violation (SQLSTATE 23505), as raised by pg and PGlite alike. */
export function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505';
}
