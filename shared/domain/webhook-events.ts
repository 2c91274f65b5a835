/** The events an organisation's webhook endpoints may listen for. */
export const WEBHOOK_EVENT_TYPES = [
  'sign_job.signed',
  'sign_job.failed',
  'file.anchored',
  'signing_certificate.issued',
  'signing_certificate.rotated',
  'signing_certificate.revoked',
  'signing_certificate.expiring',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
