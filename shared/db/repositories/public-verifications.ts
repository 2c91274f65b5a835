/** The public_verifications table: what the public verify page answered for a file hash, kept for its permalink. */
import type { Knex } from '../knex.js';

/** Keeps (or replaces) the result shown for these bytes. */
export async function savePublicVerification(sha256: string, result: unknown, db: Knex): Promise<void> {
  await db('public_verifications').insert({ sha256, result: JSON.stringify(result), updated_at: new Date() }).onConflict('sha256').merge(['result', 'updated_at']);
}

/** The result last kept for these bytes, or undefined. */
export async function findPublicVerification(sha256: string, db: Knex): Promise<Record<string, unknown> | undefined> {
  const row = (await db('public_verifications').where({ sha256 }).first('result')) as { result: unknown } | undefined;
  if (!row) return undefined;
  return typeof row.result === 'string' ? (JSON.parse(row.result) as Record<string, unknown>) : (row.result as Record<string, unknown>);
}
