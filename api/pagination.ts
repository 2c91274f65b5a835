import type { PageRequest } from '../shared/db/page.js';
import { badRequest } from './errors.js';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** Reads `?limit=` and the opaque `?cursor=` of a previous page (newest first, stable under inserts). */
export function pageRequest(query: Record<string, unknown>): PageRequest {
  const rawLimit = query.limit;
  let limit = DEFAULT_PAGE_SIZE;
  if (rawLimit !== undefined) {
    if (typeof rawLimit !== 'string' || !/^\d+$/.test(rawLimit) || Number(rawLimit) < 1 || Number(rawLimit) > MAX_PAGE_SIZE) {
      throw badRequest(`limit must be a whole number from 1 to ${MAX_PAGE_SIZE}`, 'invalid_parameter');
    }
    limit = Number(rawLimit);
  }
  const cursor = query.cursor;
  if (cursor === undefined) return { limit };
  try {
    if (typeof cursor !== 'string') throw new Error();
    const { t, id } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { t: unknown; id: unknown };
    const createdAt = new Date(String(t));
    if (typeof id !== 'string' || Number.isNaN(createdAt.getTime())) throw new Error();
    return { limit, after: { createdAt, id } };
  } catch {
    throw badRequest('cursor is not valid', 'invalid_parameter');
  }
}

export function pageResult<T extends { id: string; created_at: Date }>(rows: T[], page: PageRequest): { items: T[]; next_cursor: string | null } {
  const items = rows.slice(0, page.limit);
  const last = items[items.length - 1];
  const next_cursor =
    rows.length > page.limit && last ? Buffer.from(JSON.stringify({ t: last.created_at.toISOString(), id: last.id })).toString('base64url') : null;
  return { items, next_cursor };
}
