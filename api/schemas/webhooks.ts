import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { WEBHOOK_EVENT_TYPES } from '../../shared/domain/webhook-events.js';
import { dateTime, errorResponse, json, nextCursor, noContent, pageFields, refusals, toPageRequest, uri, userOnly, uuid, uuidField } from './common.js';
import { z } from './zod.js';

const EventType = z.enum(WEBHOOK_EVENT_TYPES, { message: `must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}` }).openapi('WebhookEventType');
const events = z.array(EventType).min(1, 'must name at least one event').max(WEBHOOK_EVENT_TYPES.length).transform((e) => [...new Set(e)]);
const url = z.string().trim().min(1, 'must not be empty').max(2000, 'must be at most 2000 characters').openapi({ format: 'uri', example: 'https://example.com/hooks/mss' });
const description = z.string().trim().max(200, 'must be at most 200 characters');

export const NewWebhookInput = z.object({ url, events, description: description.optional() }).strict();
export const WebhookUpdateInput = z
  .object({
    url: url.optional(),
    events: events.optional(),
    description: description.optional(),
    enabled: z.boolean().optional().openapi({ description: 'true re-enables a disabled endpoint (clears the reason); false disables it' }),
  })
  .strict();
export const WebhookParams = z.object({ webhook_id: uuidField });
export const DeliveryParams = z.object({ webhook_id: uuidField, delivery_id: uuidField });
/** A page of the delivery log: `?limit=` (default 50, at most 200) and the opaque `?cursor=` of the previous page. */
export const DeliveriesQuery = z
  .object({ limit: z.coerce.number().int().min(1).max(200).default(50), cursor: pageFields.cursor })
  .transform(toPageRequest);

const Webhook = z
  .object({
    webhook_id: uuid,
    url: uri,
    events: z.array(EventType),
    description: z.string(),
    enabled: z.boolean(),
    disabled_reason: z.string().nullable().openapi({ description: 'why the service disabled it (deliveries failing for long), or null' }),
    disabled_at: dateTime.nullable(),
    secret_rotation: z.object({ previous_secret_expires_at: dateTime }).nullable().openapi({ description: 'during a rotation grace period: when the old secret stops signing' }),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .openapi('Webhook');

const WebhookWithSecret = Webhook.extend({
  secret: z.string().openapi({ description: 'the signing secret (Standard Webhooks form, whsec_ + base64), shown only in this answer', example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }),
}).openapi('WebhookWithSecret');

const Attempt = z.object({ number: z.number().int(), at: dateTime, outcome: z.enum(['delivered', 'failed']), response_status: z.number().int().nullable(), duration_ms: z.number().int(), error: z.string().nullable() });

const Delivery = z
  .object({
    delivery_id: uuid,
    event_id: z.string().openapi({ description: 'the webhook-id header of every attempt', example: 'evt_5f1c0d9e8a7b6c5d4e3f2a1b0c9d8e7f' }),
    event_type: EventType,
    status: z.enum(['pending', 'delivered', 'failed']),
    attempts: z.number().int(),
    response_status: z.number().int().nullable().openapi({ description: 'HTTP status of the last attempt (null: no answer)' }),
    duration_ms: z.number().int().nullable(),
    error: z.string().nullable(),
    created_at: dateTime,
    last_attempt_at: dateTime.nullable(),
    attempt_log: z.array(Attempt),
  })
  .openapi('WebhookDelivery');

const tags = ['Webhooks'];
const security = userOnly;
const urlRefused = errorResponse(
  'The URL is refused (422): url_not_allowed (not https, credentials in it, or a private, loopback or link-local address, also after DNS resolution) or url_not_resolvable (its host name resolves to no address)',
);
const limitReached = errorResponse('The organisation already has MAX_WEBHOOK_ENDPOINTS endpoints (409, code webhook_limit_reached)');

export const webhooksPaths: RouteConfig[] = [
  {
    method: 'post',
    path: '/org/webhooks',
    tags,
    summary: 'Create a webhook endpoint (admin). The signing secret is in this answer only.',
    security,
    request: { body: { required: true, content: { 'application/json': { schema: NewWebhookInput } } } },
    responses: { 201: json(WebhookWithSecret, 'The new endpoint and its secret'), ...refusals(400, 401, 403), 409: limitReached, 422: urlRefused },
  },
  {
    method: 'get',
    path: '/org/webhooks',
    tags,
    summary: "List the organisation's webhook endpoints, without secrets (admin)",
    security,
    responses: { 200: json(z.object({ webhooks: z.array(Webhook) }), 'Endpoints'), ...refusals(401, 403) },
  },
  {
    method: 'get',
    path: '/org/webhooks/{webhook_id}',
    tags,
    summary: 'One webhook endpoint, without its secret (admin)',
    security,
    request: { params: WebhookParams },
    responses: { 200: json(Webhook, 'The endpoint'), ...refusals(400, 401, 403, 404) },
  },
  {
    method: 'patch',
    path: '/org/webhooks/{webhook_id}',
    tags,
    summary: 'Change a webhook endpoint: URL, events, description, enabled (admin)',
    security,
    request: { params: WebhookParams, body: { required: true, content: { 'application/json': { schema: WebhookUpdateInput } } } },
    responses: { 200: json(Webhook, 'The endpoint'), ...refusals(400, 401, 403, 404), 422: urlRefused },
  },
  {
    method: 'delete',
    path: '/org/webhooks/{webhook_id}',
    tags,
    summary: 'Delete a webhook endpoint and its delivery log (admin); pending deliveries stop',
    security,
    request: { params: WebhookParams },
    responses: { 204: noContent('Deleted'), ...refusals(400, 401, 403, 404) },
  },
  {
    method: 'post',
    path: '/org/webhooks/{webhook_id}/rotate-secret',
    tags,
    summary: 'A new signing secret (admin), in this answer only; the old one still signs (a second signature) for WEBHOOK_SECRET_GRACE_HOURS',
    security,
    request: { params: WebhookParams },
    responses: { 200: json(WebhookWithSecret, 'The endpoint and its new secret'), ...refusals(400, 401, 403, 404) },
  },
  {
    method: 'get',
    path: '/org/webhooks/{webhook_id}/deliveries',
    tags,
    summary: "The endpoint's delivery log, newest first, a page at a time: status, attempts with time, duration and response code (admin)",
    security,
    request: { params: WebhookParams, query: DeliveriesQuery },
    responses: {
      200: json(z.object({ deliveries: z.array(Delivery), next_cursor: nextCursor.openapi({ description: 'pass as ?cursor= for the next (older) page; null on the last' }) }), 'Deliveries'),
      ...refusals(400, 401, 403, 404),
    },
  },
  {
    method: 'post',
    path: '/org/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver',
    tags,
    summary: 'Send one event to this endpoint again, with the same event id and a fresh round of attempts (admin)',
    security,
    request: { params: DeliveryParams },
    responses: { 202: json(Delivery, 'Queued again'), ...refusals(400, 401, 403, 404, 409) },
  },
];
