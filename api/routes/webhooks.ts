import { Router } from 'express';
import { authenticate, requirePermission } from '../auth/authenticate.js';
import { actorOf } from '../audit-actor.js';
import { principalOf } from '../auth/principal.js';
import type { AppContext } from '../context.js';
import { DeliveriesQuery, DeliveryParams, NewWebhookInput, WebhookParams, WebhookUpdateInput } from '../schemas/webhooks.js';
import { createWebhook, deleteWebhook, getWebhook, listDeliveries, listWebhooks, redeliver, rotateWebhookSecret, updateWebhook } from '../services/webhooks.js';
import { parseBody, parseParams } from '../validation.js';

/** Admins: the organisation's webhook endpoints and their deliveries. Mount at /org/webhooks. */
export function webhooksRouter(ctx: AppContext): Router {
  const router = Router();
  router.use(authenticate(ctx.passport), requirePermission('org:webhooks'));
  const org = (req: Parameters<typeof principalOf>[0]) => principalOf(req).orgId;

  router.post('/', async (req, res) => {
    res.status(201).json(await createWebhook(ctx.knex, ctx.config, org(req), parseBody(NewWebhookInput, req.body), actorOf(principalOf(req))));
  });

  router.get('/', async (req, res) => {
    res.json({ webhooks: await listWebhooks(ctx.knex, org(req)) });
  });

  router.get('/:webhook_id', async (req, res) => {
    res.json(await getWebhook(ctx.knex, org(req), parseParams(WebhookParams, req.params).webhook_id));
  });

  router.patch('/:webhook_id', async (req, res) => {
    const { webhook_id: id } = parseParams(WebhookParams, req.params);
    res.json(await updateWebhook(ctx.knex, ctx.config, org(req), id, parseBody(WebhookUpdateInput, req.body), actorOf(principalOf(req))));
  });

  router.delete('/:webhook_id', async (req, res) => {
    await deleteWebhook(ctx.knex, org(req), parseParams(WebhookParams, req.params).webhook_id, actorOf(principalOf(req)));
    res.status(204).end();
  });

  router.post('/:webhook_id/rotate-secret', async (req, res) => {
    res.json(await rotateWebhookSecret(ctx.knex, ctx.config, org(req), parseParams(WebhookParams, req.params).webhook_id, actorOf(principalOf(req))));
  });

  router.get('/:webhook_id/deliveries', async (req, res) => {
    const { webhook_id: id } = parseParams(WebhookParams, req.params);
    const page = parseParams(DeliveriesQuery, req.query);
    res.set('Cache-Control', 'private, no-cache');
    res.json(await listDeliveries(ctx.knex, org(req), id, page));
  });

  router.post('/:webhook_id/deliveries/:delivery_id/redeliver', async (req, res) => {
    const { webhook_id: id, delivery_id: deliveryId } = parseParams(DeliveryParams, req.params);
    res.status(202).json(await redeliver(ctx.knex, org(req), id, deliveryId));
  });

  return router;
}
