/**
 * The webhook tables (issue 23): organisations' endpoints, the outbox of events, one delivery per event and endpoint,
 * and the log of every attempt. Events are written by whoever makes the change they describe, in that change's own
 * transaction (recordWebhookEvent), so a committed change always has its event and a rolled-back one never does.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';

type Db = Knex | Knex.Transaction;

export interface WebhookEndpointRow {
  id: string;
  org_id: string;
  url: string;
  events: string[];
  description: string;
  secret_enc: string;
  previous_secret_enc: string | null;
  previous_secret_expires_at: Date | null;
  enabled: boolean;
  disabled_reason: string | null;
  disabled_at: Date | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDeliveryRow {
  id: string;
  event_id: string;
  endpoint_id: string;
  org_id: string;
  status: DeliveryStatus;
  attempts: number;
  response_status: number | null;
  duration_ms: number | null;
  error: string | null;
  enqueued_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface WebhookAttemptRow {
  number: number;
  at: Date;
  outcome: 'delivered' | 'failed';
  response_status: number | null;
  duration_ms: number;
  error: string | null;
}

// ---- endpoints

export async function insertWebhookEndpoint(
  values: Pick<WebhookEndpointRow, 'org_id' | 'url' | 'events' | 'description' | 'secret_enc'>,
  db: Db,
): Promise<WebhookEndpointRow> {
  const [row] = await db('webhook_endpoints').insert({ id: randomUUID(), ...values }).returning('*');
  return row as WebhookEndpointRow;
}

export async function listOrgWebhookEndpoints(orgId: string, db: Db): Promise<WebhookEndpointRow[]> {
  return db('webhook_endpoints').where({ org_id: orgId }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]);
}

export async function countOrgWebhookEndpoints(orgId: string, db: Db): Promise<number> {
  const [row] = (await db('webhook_endpoints').where({ org_id: orgId }).count({ n: '*' })) as { n: string | number }[];
  return Number(row!.n);
}

/** One of the organisation's endpoints; undefined for another organisation's (never told apart from a missing one). */
export async function findOrgWebhookEndpoint(orgId: string, id: string, db: Db): Promise<WebhookEndpointRow | undefined> {
  return db('webhook_endpoints').where({ org_id: orgId, id }).first();
}

export async function findWebhookEndpoint(id: string, db: Db): Promise<WebhookEndpointRow | undefined> {
  return db('webhook_endpoints').where({ id }).first();
}

export async function updateOrgWebhookEndpoint(
  orgId: string,
  id: string,
  changes: Partial<Pick<WebhookEndpointRow, 'url' | 'events' | 'description' | 'enabled' | 'disabled_reason' | 'disabled_at' | 'failing_since' | 'secret_enc' | 'previous_secret_enc' | 'previous_secret_expires_at'>>,
  db: Db,
): Promise<WebhookEndpointRow | undefined> {
  const [row] = await db('webhook_endpoints').where({ org_id: orgId, id }).update({ ...changes, updated_at: db.fn.now() }).returning('*');
  return row as WebhookEndpointRow | undefined;
}

export async function deleteOrgWebhookEndpoint(orgId: string, id: string, db: Db): Promise<boolean> {
  return (await db('webhook_endpoints').where({ org_id: orgId, id }).delete()) > 0;
}

/** A successful delivery: the endpoint is no longer failing. */
export async function markEndpointHealthy(id: string, db: Db): Promise<void> {
  await db('webhook_endpoints').where({ id }).whereNotNull('failing_since').update({ failing_since: null });
}

/** A failed attempt: remembers when failing began (kept from the first failure until a success). Returns that time. */
export async function markEndpointFailing(id: string, db: Db): Promise<Date | undefined> {
  const [row] = await db('webhook_endpoints')
    .where({ id })
    .update({ failing_since: db.raw('coalesce(failing_since, now())') })
    .returning('failing_since');
  return (row as { failing_since: Date } | undefined)?.failing_since;
}

/** Disables an enabled endpoint with the reason its admins see. */
export async function disableWebhookEndpoint(id: string, reason: string, db: Db): Promise<boolean> {
  return (await db('webhook_endpoints').where({ id, enabled: true }).update({ enabled: false, disabled_reason: reason, disabled_at: db.fn.now(), updated_at: db.fn.now() })) > 0;
}

// ---- the outbox

export interface WebhookEventInput {
  orgId: string;
  type: string;
  /** The object as the API shows it. */
  data: unknown;
  /** Records the event once only, whatever calls come later with the same key. */
  dedupeKey?: string;
}

/** Whether any enabled endpoint of the organisation listens for `type` (else there is nothing to build or record). */
export async function hasWebhookSubscribers(db: Db, orgId: string, type: string): Promise<boolean> {
  return (await db('webhook_endpoints').where({ org_id: orgId, enabled: true }).whereRaw('? = ANY(events)', [type]).first('id')) !== undefined;
}

/**
 * Records an event and one pending delivery per enabled endpoint of the organisation that listens for its type, in
 * `db` (the caller's transaction). Nothing is written when no endpoint listens. Returns the event id, if recorded.
 */
export async function recordWebhookEvent(db: Db, event: WebhookEventInput): Promise<string | undefined> {
  const endpoints = (await db('webhook_endpoints').where({ org_id: event.orgId, enabled: true }).whereRaw('? = ANY(events)', [event.type]).select('id')) as { id: string }[];
  if (endpoints.length === 0) return undefined;
  const id = `evt_${randomBytes(16).toString('hex')}`;
  const timestamp = new Date().toISOString();
  // The Standard Webhooks payload shape: type, timestamp, data (and the id, for receivers that log bodies alone).
  const body = JSON.stringify({ id, type: event.type, timestamp, data: event.data });
  const inserted = await db('webhook_events')
    .insert({ id, org_id: event.orgId, type: event.type, body, dedupe_key: event.dedupeKey ?? null })
    .onConflict('dedupe_key')
    .ignore()
    .returning('id');
  if (inserted.length === 0) return undefined;
  await db('webhook_deliveries').insert(endpoints.map((e) => ({ id: randomUUID(), event_id: id, endpoint_id: e.id, org_id: event.orgId })));
  return id;
}

/** Whether an event with this dedupe key was recorded. */
export async function webhookEventRecorded(db: Db, dedupeKey: string): Promise<boolean> {
  return (await db('webhook_events').where({ dedupe_key: dedupeKey }).first('id')) !== undefined;
}

// ---- deliveries

/** Pending deliveries not yet handed to the queue, oldest first. */
export async function deliveriesToEnqueue(limit: number, db: Db): Promise<string[]> {
  const rows = (await db('webhook_deliveries').where({ status: 'pending' }).whereNull('enqueued_at').orderBy('created_at').limit(limit).select('id')) as { id: string }[];
  return rows.map((r) => r.id);
}

export async function markDeliveriesEnqueued(ids: readonly string[], db: Db): Promise<void> {
  if (ids.length > 0) await db('webhook_deliveries').whereIn('id', ids).whereNull('enqueued_at').update({ enqueued_at: db.fn.now() });
}

/** Pending deliveries already handed to the queue, a page after `after` (by id): the relay checks the queue still holds them. */
export async function enqueuedPendingDeliveries(after: string | undefined, limit: number, db: Db): Promise<string[]> {
  const q = db('webhook_deliveries').where({ status: 'pending' }).whereNotNull('enqueued_at').orderBy('id').limit(limit).select('id');
  if (after) void q.where('id', '>', after);
  return ((await q) as { id: string }[]).map((r) => r.id);
}

export interface DeliveryWork {
  delivery: WebhookDeliveryRow;
  body: string;
  endpoint: WebhookEndpointRow;
}

/** A delivery with its event's body and its endpoint (undefined when the delivery is gone with its endpoint). */
export async function deliveryWork(id: string, db: Db): Promise<DeliveryWork | undefined> {
  const delivery = (await db('webhook_deliveries').where({ id }).first()) as WebhookDeliveryRow | undefined;
  if (!delivery) return undefined;
  const [event, endpoint] = await Promise.all([
    db('webhook_events').where({ id: delivery.event_id }).first('body') as Promise<{ body: string } | undefined>,
    findWebhookEndpoint(delivery.endpoint_id, db),
  ]);
  if (!event || !endpoint) return undefined;
  return { delivery, body: event.body, endpoint };
}

/**
 * Records one attempt and its effect on the delivery: delivered, failed for good (`final`), or still pending. Only
 * a pending delivery changes (a duplicate run of an attempt cannot undo a recorded outcome).
 */
export async function recordDeliveryAttempt(
  deliveryId: string,
  attempt: { number: number; at: Date; outcome: 'delivered' | 'failed'; responseStatus: number | null; durationMs: number; error: string | null; final: boolean },
  db: Db,
): Promise<void> {
  await db.transaction(async (trx) => {
    await trx('webhook_attempts').insert({
      delivery_id: deliveryId,
      number: attempt.number,
      at: attempt.at,
      outcome: attempt.outcome,
      response_status: attempt.responseStatus,
      duration_ms: attempt.durationMs,
      error: attempt.error,
    });
    const status: DeliveryStatus = attempt.outcome === 'delivered' ? 'delivered' : attempt.final ? 'failed' : 'pending';
    await trx('webhook_deliveries')
      .where({ id: deliveryId, status: 'pending' })
      .update({ status, attempts: trx.raw('attempts + 1'), response_status: attempt.responseStatus, duration_ms: attempt.durationMs, error: attempt.error, updated_at: trx.fn.now() });
  });
}

/** Ends a pending delivery without an attempt (its endpoint was disabled meanwhile). */
export async function failPendingDelivery(id: string, error: string, db: Db): Promise<void> {
  await db('webhook_deliveries').where({ id, status: 'pending' }).update({ status: 'failed', error, updated_at: db.fn.now() });
}

export interface DeliveryListing extends WebhookDeliveryRow {
  event_type: string;
  last_attempt_at: Date | null;
}

/** An endpoint's deliveries, newest first, with their event's type; a page before `before` (created_at, id). */
export async function listEndpointDeliveries(orgId: string, endpointId: string, page: { limit: number; before?: { created_at: Date; id: string }; id?: string }, db: Db): Promise<DeliveryListing[]> {
  const q = db('webhook_deliveries as d')
    .join('webhook_events as e', 'e.id', 'd.event_id')
    .where({ 'd.org_id': orgId, 'd.endpoint_id': endpointId })
    .orderBy([{ column: 'd.created_at', order: 'desc' }, { column: 'd.id', order: 'desc' }])
    .limit(page.limit)
    .select('d.*', 'e.type as event_type', db.raw('(select max(at) from webhook_attempts a where a.delivery_id = d.id) as last_attempt_at'));
  if (page.id) void q.where('d.id', page.id);
  if (page.before) void q.whereRaw('(d.created_at, d.id) < (?, ?)', [page.before.created_at, page.before.id]);
  return q;
}

export async function findOrgDelivery(orgId: string, endpointId: string, id: string, db: Db): Promise<WebhookDeliveryRow | undefined> {
  return db('webhook_deliveries').where({ org_id: orgId, endpoint_id: endpointId, id }).first();
}

/** Attempts of deliveries, oldest first, by delivery id. */
export async function attemptsOfDeliveries(ids: readonly string[], db: Db): Promise<Map<string, WebhookAttemptRow[]>> {
  const out = new Map<string, WebhookAttemptRow[]>();
  if (ids.length === 0) return out;
  const rows = (await db('webhook_attempts').whereIn('delivery_id', ids).orderBy('id')) as (WebhookAttemptRow & { delivery_id: string })[];
  for (const r of rows) out.set(r.delivery_id, [...(out.get(r.delivery_id) ?? []), r]);
  return out;
}

/** Sends a delivery again (same event, same id): pending once more, to be handed to the queue by the relay. */
export async function resetDeliveryForRedelivery(id: string, db: Db): Promise<boolean> {
  return (await db('webhook_deliveries').where({ id }).whereNot({ status: 'pending' }).update({ status: 'pending', attempts: 0, enqueued_at: null, error: null, updated_at: db.fn.now() })) > 0;
}
