/** The public anchor proof of a signed file, by the SHA-256 of its bytes. */
import { anchorViewForHash, type AnchorView } from '../../shared/anchoring/views.js';
import type { AppContext } from '../context.js';
import { notFound } from '../errors.js';

/** The anchor of these bytes (see anchorViewForHash); 404 when the service never signed a file with them. */
export async function anchorProof(ctx: Pick<AppContext, 'knex' | 'config'>, sha256: string): Promise<AnchorView> {
  const view = await anchorViewForHash(ctx.knex, ctx.config.baseUrl, sha256);
  if (!view) throw notFound('anchor for this sha256');
  return view;
}
