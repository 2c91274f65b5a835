import type { Model, QueryBuilder } from 'objection';

/** One page of a newest-first listing: at most `limit` rows, after the row `after` of the previous page. */
export interface PageRequest {
  limit: number;
  after?: { createdAt: Date; id: string };
}

/** Applies the page to a query of a table with created_at and id; fetch limit + 1 to know if more exist. */
export function applyPage<M extends Model>(query: QueryBuilder<M, M[]>, page: PageRequest): QueryBuilder<M, M[]> {
  query.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(page.limit + 1);
  if (page.after) query.whereRaw('(created_at, id) < (?, ?)', [page.after.createdAt, page.after.id]);
  return query;
}
