import { UniqueViolationError } from 'objection';

/** Postgres unique_violation (SQLSTATE 23505), from pg or PGlite directly or wrapped by objection. */
export function isUniqueViolation(err: unknown): boolean {
  if (err instanceof UniqueViolationError) return true;
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505';
}
