import type { QueryBuilder, Model } from 'objection';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export interface PageRequest {
  limit: number;
  after?: { createdAt: Date; id: string };
}

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

/** Applies the page to a query of a table with created_at and id; fetch limit + 1 to know if more exist. */
export function applyPage<M extends Model>(query: QueryBuilder<M, M[]>, page: PageRequest): QueryBuilder<M, M[]> {
  query.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(page.limit + 1);
  if (page.after) query.whereRaw('(created_at, id) < (?, ?)', [page.after.createdAt, page.after.id]);
  return query;
}

export function pageResult<T extends { id: string; created_at: Date }>(rows: T[], page: PageRequest): { items: T[]; next_cursor: string | null } {
  const items = rows.slice(0, page.limit);
  const last = items[items.length - 1];
  const next_cursor =
    rows.length > page.limit && last ? Buffer.from(JSON.stringify({ t: last.created_at.toISOString(), id: last.id })).toString('base64url') : null;
  return { items, next_cursor };
}
