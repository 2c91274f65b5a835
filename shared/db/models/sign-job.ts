import { Model } from 'objection';
import type { ManifestInput } from '../../c2pa/manifest-definition.js';

export const JOB_STATUSES = ['queued', 'processing', 'signed', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
/** States a job leaves on its own; `?wait=` holds requests while a job is in one of these. */
export const PENDING_STATUSES: readonly JobStatus[] = ['queued', 'processing'];

export class SignJob extends Model {
  static override tableName = 'sign_jobs';
  declare id: string;
  declare org_id: string;
  declare upload_id: string;
  declare user_id: string | null;
  declare api_key_id: string | null;
  declare idempotency_key: string | null;
  declare manifest: ManifestInput;
  declare status: JobStatus;
  declare attempts: number;
  declare error_code: string | null;
  declare error_message: string | null;
  declare created_at: Date;
  declare updated_at: Date;

  static override get jsonAttributes(): string[] {
    return ['manifest'];
  }
}
