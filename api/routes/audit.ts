import { Router } from 'express';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { principalOf } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { AuditEventParams, AuditEventsQuery, ConsistencyQuery, ProofQuery } from '../schemas/audit.js';
import { auditProofs, latestCheckpoint, listAuditEvents } from '../services/audit.js';
import { parseParams } from '../validation.js';

/** The audit log: admins read their organisation's events and proofs (/org/audit-events); checkpoints and consistency proofs are public (/v1/audit). */
export function auditRouters(ctx: AppContext): { org: Router; public: Router } {
  const proofs = auditProofs(ctx.knex);
  const org = Router();
  org.use(authenticate(ctx.passport), requirePermission('org:audit'));
  org.get('/', async (req, res) => {
    const { limit, cursor, ...filter } = parseParams(AuditEventsQuery, req.query);
    res.json(await listAuditEvents(ctx.knex, principalOf(req).orgId, { ...filter, beforeIndex: cursor }, limit));
  });
  org.get('/:event_id/proof', async (req, res) => {
    const { event_id: id } = parseParams(AuditEventParams, req.params);
    const { tree_size: size } = parseParams(ProofQuery, req.query);
    res.json(await proofs.inclusion(principalOf(req).orgId, id, size));
  });

  const open = Router();
  open.get('/checkpoint', async (_req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Cache-Control', 'no-store');
    res.json(await latestCheckpoint(ctx.knex));
  });
  open.get('/consistency', async (req, res) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    const { first, second } = parseParams(ConsistencyQuery, req.query);
    // A proof between two sizes never changes.
    res.setHeader('Cache-Control', 'public, max-age=86400, immutable');
    res.json(await proofs.consistency(first, second));
  });
  return { org, public: open };
}
