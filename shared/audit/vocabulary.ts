/**
 * The audit log's vocabulary: every action an event may name, what its target is, and who may be its actor. The
 * README's "Audit log" section lists the same; a test checks the two agree.
 */
export const AUDIT_ACTIONS = [
  // Accounts
  'account.registered',
  'account.sign_in',
  'account.sign_in_failed',
  'account.sign_in_throttled',
  'account.signed_out',
  'account.refresh_token_reused',
  // People and keys
  'user.created',
  'user.role_changed',
  'user.deleted',
  'api_key.created',
  'api_key.revoked',
  // Configuration
  'template.created',
  'template.changed',
  'template.deleted',
  'trust_anchor.created',
  'trust_anchor.deleted',
  'webhook.created',
  'webhook.changed',
  'webhook.deleted',
  'webhook.secret_rotated',
  'webhook.disabled',
  // Signing
  'sign.requested',
  'sign.signed',
  'sign.failed',
  // Certificates
  'certificate.requested',
  'certificate.issued',
  'certificate.rotated',
  'certificate.revoked',
  'certificate.external_accepted',
  'certificate.external_refused',
  'crl.published',
  // Operator and service
  'operator.command',
  'audit.archived',
  'service.started',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDIT_OUTCOMES = ['success', 'failure', 'refused'] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

/** Who did it. Anonymous callers are named by their address; operators by the command they ran. */
export type AuditActor =
  | { type: 'user'; id: string }
  | { type: 'api_key'; id: string }
  | { type: 'service'; role: string }
  | { type: 'operator'; command: string }
  | { type: 'anonymous'; address: string };

/** What it was done to: a kind and its identifier (a user's id, a certificate's serial, a job's id). */
export interface AuditTarget {
  type: string;
  id: string;
}

/** A JSON value as stored and hashed (no undefined, no Date: times are ISO strings). */
export type AuditJson = string | number | boolean | null | AuditJson[] | { [key: string]: AuditJson };
