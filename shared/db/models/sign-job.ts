import { Model } from 'objection';
import type { ManifestInput, ManifestRequest } from '../../domain/manifest-input.js';

/**
 * queued -> processing -> signed -> anchoring -> anchored, or failed. The signed file exists from `signed` on;
 * anchoring (its batch is sealed and on its way to the chain) and anchored (confirmed) follow without holding it up.
 */
export const JOB_STATUSES = ['queued', 'processing', 'signed', 'anchoring', 'anchored', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
/**
 * States a job leaves on its own before its signed file exists; `?wait=` holds requests while a job is in one of
 * these. It does not wait for anchoring (which takes up to ANCHOR_BATCH_MAX_AGE_MS plus confirmations).
 */
export const PENDING_STATUSES: readonly JobStatus[] = ['queued', 'processing'];
/** States in which the job's signed file exists (and is downloadable). */
export const SIGNED_STATUSES: readonly JobStatus[] = ['signed', 'anchoring', 'anchored'];

export class SignJob extends Model {
  static override tableName = 'sign_jobs';
  declare id: string;
  declare org_id: string;
  declare upload_id: string;
  declare user_id: string | null;
  declare api_key_id: string | null;
  declare idempotency_key: string | null;
  /** The manifest the job applies: the template's defaults (if any) with the request's fields over them. */
  declare manifest: ManifestInput;
  /** The manifest as the request gave it (null for jobs made before templates existed: then as `manifest`). */
  declare request_manifest: ManifestRequest | null;
  /** The template and version the job used, or both null. */
  declare template_id: string | null;
  declare template_version: number | null;
  /** The request's or template's discoverability choice; null follows the organisation's setting (migration 008). */
  declare discoverable: boolean | null;
  /** The request's or template's soft-binding choice; null follows the organisation's setting (migration 010). */
  declare soft_binding: boolean | null;
  declare status: JobStatus;
  declare attempts: number;
  declare error_code: string | null;
  declare error_message: string | null;
  declare created_at: Date;
  declare updated_at: Date;

  static override get jsonAttributes(): string[] {
    return ['manifest', 'request_manifest'];
  }
}
