/**
 * An organisation's webhook endpoints (admins): created with a signing secret shown once, listed and changed without
 * it, its secret rotated with a grace period, deleted; their delivery logs and redelivery of one event. URLs pass the
 * SSRF guard (shared/net/guarded-fetch.ts) when given, and again at every delivery.
 */
import type { Knex } from 'knex';
import { recordAuditEvent } from '../../shared/audit/record.js';
import type { AuditActor } from '../../shared/audit/vocabulary.js';
import type { Config } from '../../shared/config.js';
import type { PageRequest } from '../../shared/db/page.js';
import { lockOrganisation } from '../../shared/db/repositories/organisations.js';
import {
  attemptsOfDeliveries,
  countOrgWebhookEndpoints,
  deleteOrgWebhookEndpoint,
  findOrgDelivery,
  findOrgWebhookEndpoint,
  insertWebhookEndpoint,
  listEndpointDeliveries,
  listOrgWebhookEndpoints,
  resetDeliveryForRedelivery,
  updateOrgWebhookEndpoint,
  type DeliveryListing,
  type WebhookAttemptRow,
  type WebhookEndpointRow,
} from '../../shared/db/repositories/webhooks.js';
import type { WebhookEventType } from '../../shared/domain/webhook-events.js';
import { assertPublicUrl } from '../../shared/net/guarded-fetch.js';
import { encryptSecret, generateWebhookSecret, webhookKey } from '../../shared/webhooks/secrets.js';
import { conflict, notFound } from '../errors.js';
import { pageResult } from '../pagination.js';

type WebhookSettings = Pick<Config, 'webhooks' | 'jwtSecret'>;

export function webhookView(e: WebhookEndpointRow, now = new Date()) {
  const rotating = e.previous_secret_expires_at && e.previous_secret_expires_at > now ? e.previous_secret_expires_at : null;
  return {
    webhook_id: e.id,
    url: e.url,
    events: e.events as WebhookEventType[],
    description: e.description,
    enabled: e.enabled,
    disabled_reason: e.disabled_reason,
    disabled_at: e.disabled_at?.toISOString() ?? null,
    secret_rotation: rotating ? { previous_secret_expires_at: rotating.toISOString() } : null,
    created_at: e.created_at.toISOString(),
    updated_at: e.updated_at.toISOString(),
  };
}

function deliveryView(d: DeliveryListing, attempts: WebhookAttemptRow[]) {
  return {
    delivery_id: d.id,
    event_id: d.event_id,
    event_type: d.event_type as WebhookEventType,
    status: d.status,
    attempts: d.attempts,
    response_status: d.response_status,
    duration_ms: d.duration_ms,
    error: d.error,
    created_at: d.created_at.toISOString(),
    last_attempt_at: d.last_attempt_at ? new Date(d.last_attempt_at).toISOString() : null,
    attempt_log: attempts.map((a) => ({ number: a.number, at: a.at.toISOString(), outcome: a.outcome, response_status: a.response_status, duration_ms: a.duration_ms, error: a.error })),
  };
}

/** The guard's verdict on a URL an admin gives (422 url_not_allowed); http and private addresses only with WEBHOOK_ALLOW_PRIVATE. */
async function checkUrl(config: WebhookSettings, url: string): Promise<string> {
  const policy = { allowPrivate: config.webhooks.allowPrivate, allowHttp: config.webhooks.allowPrivate };
  return (await assertPublicUrl(url, policy)).toString();
}

/** An endpoint as audit events describe it: where it points (origin and path, never a query that may hold a token). */
function auditedEndpoint(e: Pick<WebhookEndpointRow, 'url' | 'events' | 'enabled'>) {
  const u = new URL(e.url);
  return { url: `${u.origin}${u.pathname}`, events: e.events, enabled: e.enabled };
}

async function existing(knex: Knex, orgId: string, id: string): Promise<WebhookEndpointRow> {
  const row = await findOrgWebhookEndpoint(orgId, id, knex);
  if (!row) throw notFound('webhook');
  return row;
}

/**
 * A new endpoint, at most MAX_WEBHOOK_ENDPOINTS per organisation (409 webhook_limit_reached): the count is taken with
 * the organisation's row locked, so parallel requests cannot all pass it.
 */
export async function createWebhook(knex: Knex, config: WebhookSettings, orgId: string, input: { url: string; events: string[]; description?: string }, actor: AuditActor) {
  const url = await checkUrl(config, input.url);
  const secret = generateWebhookSecret();
  const row = await knex.transaction(async (trx) => {
    await lockOrganisation(orgId, trx);
    const { maxEndpoints } = config.webhooks;
    if ((await countOrgWebhookEndpoints(orgId, trx)) >= maxEndpoints) {
      throw conflict(`an organisation has at most ${maxEndpoints} webhook endpoints (MAX_WEBHOOK_ENDPOINTS): delete one, or send more event types to one endpoint`, 'webhook_limit_reached');
    }
    const inserted = await insertWebhookEndpoint({ org_id: orgId, url, events: input.events, description: input.description ?? '', secret_enc: encryptSecret(webhookKey(config), secret) }, trx);
    await recordAuditEvent(trx, { action: 'webhook.created', actor, orgId, target: { type: 'webhook', id: inserted.id }, details: auditedEndpoint(inserted) });
    return inserted;
  });
  return { ...webhookView(row), secret };
}

export async function listWebhooks(knex: Knex, orgId: string) {
  return (await listOrgWebhookEndpoints(orgId, knex)).map((e) => webhookView(e));
}

export async function getWebhook(knex: Knex, orgId: string, id: string) {
  return webhookView(await existing(knex, orgId, id));
}

export async function updateWebhook(
  knex: Knex,
  config: WebhookSettings,
  orgId: string,
  id: string,
  input: { url?: string; events?: string[]; description?: string; enabled?: boolean },
  actor: AuditActor,
) {
  await existing(knex, orgId, id);
  const changes: Parameters<typeof updateOrgWebhookEndpoint>[2] = {};
  if (input.url !== undefined) changes.url = await checkUrl(config, input.url);
  if (input.events !== undefined) changes.events = input.events;
  if (input.description !== undefined) changes.description = input.description;
  if (input.enabled === true) Object.assign(changes, { enabled: true, disabled_reason: null, disabled_at: null, failing_since: null });
  if (input.enabled === false) Object.assign(changes, { enabled: false, disabled_reason: 'disabled by an admin', disabled_at: new Date() });
  const row = await knex.transaction(async (trx) => {
    const updated = await updateOrgWebhookEndpoint(orgId, id, changes, trx);
    if (!updated) throw notFound('webhook');
    const action = input.enabled === false ? 'webhook.disabled' : 'webhook.changed';
    await recordAuditEvent(trx, { action, actor, orgId, target: { type: 'webhook', id }, details: { ...auditedEndpoint(updated), changed: Object.keys(input).sort() } });
    return updated;
  });
  return webhookView(row);
}

export async function deleteWebhook(knex: Knex, orgId: string, id: string, actor: AuditActor): Promise<void> {
  await knex.transaction(async (trx) => {
    if (!(await deleteOrgWebhookEndpoint(orgId, id, trx))) throw notFound('webhook');
    await recordAuditEvent(trx, { action: 'webhook.deleted', actor, orgId, target: { type: 'webhook', id } });
  });
}

/** A new secret; the current one becomes the previous one and still signs for the grace period. */
export async function rotateWebhookSecret(knex: Knex, config: WebhookSettings, orgId: string, id: string, actor: AuditActor) {
  const row = await existing(knex, orgId, id);
  const secret = generateWebhookSecret();
  const previousExpiresAt = new Date(Date.now() + config.webhooks.secretGraceHours * 3600_000);
  const updated = await knex.transaction(async (trx) => {
    const changed = await updateOrgWebhookEndpoint(orgId, id, { secret_enc: encryptSecret(webhookKey(config), secret), previous_secret_enc: row.secret_enc, previous_secret_expires_at: previousExpiresAt }, trx);
    if (!changed) throw notFound('webhook');
    await recordAuditEvent(trx, { action: 'webhook.secret_rotated', actor, orgId, target: { type: 'webhook', id }, details: { previous_secret_expires_at: previousExpiresAt.toISOString() } });
    return changed;
  });
  return { ...webhookView(updated), secret };
}

/** A page of an endpoint's delivery log, newest first, with the cursor of the next (older) page. */
export async function listDeliveries(knex: Knex, orgId: string, id: string, page: PageRequest) {
  await existing(knex, orgId, id);
  const before = page.after && { created_at: page.after.createdAt, id: page.after.id };
  const { items, next_cursor } = pageResult(await listEndpointDeliveries(orgId, id, { limit: page.limit + 1, before }, knex), page);
  const attempts = await attemptsOfDeliveries(items.map((r) => r.id), knex);
  return { deliveries: items.map((r) => deliveryView(r, attempts.get(r.id) ?? [])), next_cursor };
}

/** Sends one delivered or failed event to its endpoint again (same event id); a pending one is still on its way (409). */
export async function redeliver(knex: Knex, orgId: string, id: string, deliveryId: string) {
  const endpoint = await existing(knex, orgId, id);
  const delivery = await findOrgDelivery(orgId, id, deliveryId, knex);
  if (!delivery) throw notFound('delivery');
  if (!endpoint.enabled) throw conflict('the endpoint is disabled: enable it first (PATCH with enabled: true)', 'webhook_disabled');
  if (!(await resetDeliveryForRedelivery(deliveryId, knex))) throw conflict('the delivery is still pending: it is being attempted', 'delivery_pending');
  const [row] = await listEndpointDeliveries(orgId, id, { limit: 1, id: deliveryId }, knex);
  const attempts = await attemptsOfDeliveries([deliveryId], knex);
  return deliveryView(row!, attempts.get(deliveryId) ?? []);
}
