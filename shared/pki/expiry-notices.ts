/**
 * signing_certificate.expiring: once per certificate, when the certificate an organisation signs with comes within
 * `withinDays` of its end (the scheduler checks hourly): its newest service CA leaf, or the external CA's certificate
 * in force (external-certificates.ts), whichever it signs with. A certificate the organisation has rotated away from
 * gets none. The event's dedupe key makes it once, whichever scheduler runs the check and however often.
 */
import type { Knex } from 'knex';
import { orgLeavesExpiringBy } from '../db/repositories/certificates.js';
import { newestExternalExpiringBy } from '../db/repositories/external-certificates.js';
import { recordWebhookEvent, webhookEventRecorded, type WebhookEventInput } from '../db/repositories/webhooks.js';
import { certificateEventView, externalRequestView } from './certificate-view.js';
import { externalCertificateInForce } from './external-certificates.js';

type Notice = WebhookEventInput & { dedupeKey: string };

/** Records the notices due; returns how many were recorded. */
export async function recordExpiryNotices(knex: Knex, withinDays: number, now = new Date()): Promise<number> {
  const until = new Date(now.getTime() + withinDays * 86_400_000);
  const [leaves, externals] = await Promise.all([orgLeavesExpiringBy(knex, now, until), newestExternalExpiringBy(knex, now, until)]);
  const due: Notice[] = [];
  for (const c of leaves) {
    // An external certificate accepted since the leaf signs instead.
    if (await externalCertificateInForce(knex, c.org_id!)) continue;
    due.push({ orgId: c.org_id!, type: 'signing_certificate.expiring', data: certificateEventView(c, now), dedupeKey: `signing_certificate.expiring:${c.serial}` });
  }
  for (const c of externals) {
    // A service CA certificate issued since signs instead.
    if ((await externalCertificateInForce(knex, c.org_id))?.id !== c.id) continue;
    // Keyed by the request: another CA's serial may equal one of the service CA's.
    due.push({ orgId: c.org_id, type: 'signing_certificate.expiring', data: externalRequestView(c), dedupeKey: `signing_certificate.expiring:external:${c.id}` });
  }
  let recorded = 0;
  for (const event of due) {
    if (await webhookEventRecorded(knex, event.dedupeKey)) continue;
    const id = await knex.transaction((trx) => recordWebhookEvent(trx, event));
    if (id) recorded += 1;
  }
  return recorded;
}
