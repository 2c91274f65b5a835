/**
 * One delivery attempt, as the Standard Webhooks specification describes it: the event's stored body POSTed with
 * `webhook-id` (the event id, the same on every attempt), `webhook-timestamp` (this attempt's time, in seconds) and
 * `webhook-signature` (`v1,<base64 HMAC-SHA256>` of `id.timestamp.body`; during a rotation's grace period a second
 * one under the old secret, space-separated). Only through the SSRF guard, redirects not followed (a 3xx fails the
 * attempt). A 2xx answer delivers; anything else fails the attempt, which is thrown so the queue retries it.
 */
import { recordAuditEvent } from '../audit/record.js';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { WebhookConfig } from '../config.js';
import {
  deliveryWork,
  disableWebhookEndpoint,
  failPendingDelivery,
  markEndpointFailing,
  markEndpointHealthy,
  recordDeliveryAttempt,
  type WebhookEndpointRow,
} from '../db/repositories/webhooks.js';
import { webhookDeliveries, webhookDeliverySeconds } from '../metrics/metrics.js';
import { guardedFetch } from '../net/guarded-fetch.js';
import type { SignAttempt } from '../queue/types.js';
import { decryptSecret, signatureOf } from './secrets.js';

export interface WebhookDeliveryDeps {
  knex: Knex;
  settings: WebhookConfig;
  /** The key endpoint secrets are encrypted with (secrets.ts webhookKey). */
  key: Buffer;
  logger: Logger;
}

/** The most of an endpoint's answer read (it is not used; a larger one fails the attempt). */
const MAX_ANSWER_BYTES = 256 * 1024;

/** The secrets that sign now: the current one, and the previous one during its grace period. */
export function signingSecrets(key: Buffer, endpoint: WebhookEndpointRow, now: Date): string[] {
  const secrets = [decryptSecret(key, endpoint.secret_enc)];
  if (endpoint.previous_secret_enc && endpoint.previous_secret_expires_at && endpoint.previous_secret_expires_at > now) {
    secrets.push(decryptSecret(key, endpoint.previous_secret_enc));
  }
  return secrets;
}

export class DeliveryFailedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DeliveryFailedError';
  }
}

export async function deliverWebhook(deps: WebhookDeliveryDeps, deliveryId: string, attempt: SignAttempt): Promise<void> {
  const work = await deliveryWork(deliveryId, deps.knex);
  // Gone with its endpoint, or already settled (a duplicate queue entry, a redelivery of a delivered event): nothing to do.
  if (!work || work.delivery.status !== 'pending') return;
  const { delivery, body, endpoint } = work;
  if (!endpoint.enabled) {
    await failPendingDelivery(deliveryId, `endpoint disabled: ${endpoint.disabled_reason ?? 'by an admin'}`, deps.knex);
    webhookDeliveries.inc({ outcome: 'skipped' });
    return;
  }
  const at = new Date();
  const timestamp = Math.floor(at.getTime() / 1000);
  const signature = signingSecrets(deps.key, endpoint, at)
    .map((s) => signatureOf(s, delivery.event_id, timestamp, body))
    .join(' ');
  const started = performance.now();
  let status: number | null = null;
  let error: string | null = null;
  try {
    const res = await guardedFetch(endpoint.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'media-signing-service-webhooks/1',
        'webhook-id': delivery.event_id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signature,
      },
      body,
      allowPrivate: deps.settings.allowPrivate,
      allowHttp: deps.settings.allowPrivate,
      maxRedirects: 0,
      timeoutMs: deps.settings.timeoutMs,
      maxBytes: MAX_ANSWER_BYTES,
    });
    status = res.status;
    if (status < 200 || status > 299) error = status >= 300 && status < 400 ? `HTTP ${status}: redirects are not followed` : `HTTP ${status}`;
  } catch (err) {
    error = (err as Error).message;
  }
  const durationMs = Math.round(performance.now() - started);
  const delivered = error === null;
  webhookDeliverySeconds.observe({ result: delivered ? 'success' : 'failure' }, durationMs / 1000);
  await recordDeliveryAttempt(deliveryId, { number: attempt.number, at, outcome: delivered ? 'delivered' : 'failed', responseStatus: status, durationMs, error, final: attempt.final }, deps.knex);
  const log = deps.logger.child({ deliveryId, eventId: delivery.event_id, endpointId: endpoint.id, attempt: attempt.number });
  if (delivered) {
    webhookDeliveries.inc({ outcome: 'delivered' });
    await markEndpointHealthy(endpoint.id, deps.knex);
    return;
  }
  webhookDeliveries.inc({ outcome: attempt.final ? 'failed' : 'retried' });
  const failingSince = await markEndpointFailing(endpoint.id, deps.knex);
  if (attempt.final) {
    log.warn({ error }, 'webhook delivery failed for good');
    const hours = deps.settings.disableAfterHours;
    if (failingSince && Date.now() - failingSince.getTime() >= hours * 3600_000) {
      const reason = `every delivery attempt failed since ${failingSince.toISOString()} (last: ${error}); disabled after ${hours} hours of failures`;
      const disabled = await deps.knex.transaction(async (trx) => {
        if (!(await disableWebhookEndpoint(endpoint.id, reason, trx))) return false;
        await recordAuditEvent(trx, { action: 'webhook.disabled', actor: { type: 'service', role: 'worker' }, orgId: endpoint.org_id, target: { type: 'webhook', id: endpoint.id }, outcome: 'failure', details: { reason: 'failing deliveries', failing_since: failingSince.toISOString(), hours } });
        return true;
      });
      if (disabled) log.warn({ reason }, 'webhook endpoint disabled');
    }
  } else log.info({ error }, 'webhook delivery attempt failed; will retry');
  throw new DeliveryFailedError(error!);
}
