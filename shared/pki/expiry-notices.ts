/**
 * signing_certificate.expiring: once per certificate, when an organisation's current signing certificate comes within
 * `withinDays` of its end (the scheduler checks hourly). The event's dedupe key makes it once, whichever scheduler
 * runs the check and however often.
 */
import type { Knex } from 'knex';
import { orgLeavesExpiringBy } from '../db/repositories/certificates.js';
import { recordWebhookEvent, webhookEventRecorded } from '../db/repositories/webhooks.js';
import { certificateEventView } from './certificate-view.js';

/** Records the notices due; returns how many were recorded. */
export async function recordExpiryNotices(knex: Knex, withinDays: number, now = new Date()): Promise<number> {
  const expiring = await orgLeavesExpiringBy(knex, now, new Date(now.getTime() + withinDays * 86_400_000));
  let recorded = 0;
  for (const c of expiring) {
    const key = `signing_certificate.expiring:${c.serial}`;
    if (await webhookEventRecorded(knex, key)) continue;
    const id = await knex.transaction((trx) => recordWebhookEvent(trx, { orgId: c.org_id!, type: 'signing_certificate.expiring', data: certificateEventView(c, now), dedupeKey: key }));
    if (id) recorded += 1;
  }
  return recorded;
}
