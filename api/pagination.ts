import type { PageRequest } from '../shared/db/page.js';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** The position an opaque `?cursor=` (pageResult's next_cursor) names; undefined for one this service did not make. */
export function decodeCursor(cursor: string): PageRequest['after'] {
  try {
    const { t, id } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { t: unknown; id: unknown };
    const createdAt = new Date(String(t));
    if (typeof id !== 'string' || Number.isNaN(createdAt.getTime())) return undefined;
    return { createdAt, id };
  } catch {
    return undefined;
  }
}

export function pageResult<T extends { id: string; created_at: Date }>(rows: T[], page: PageRequest): { items: T[]; next_cursor: string | null } {
  const items = rows.slice(0, page.limit);
  const last = items[items.length - 1];
  const next_cursor =
    rows.length > page.limit && last ? Buffer.from(JSON.stringify({ t: last.created_at.toISOString(), id: last.id })).toString('base64url') : null;
  return { items, next_cursor };
}
