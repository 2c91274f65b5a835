import { Model } from 'objection';
import type { MediaMimeType } from '../../media/formats.js';

export class SignedFile extends Model {
  static override tableName = 'signed_files';
  declare id: string;
  declare org_id: string;
  declare job_id: string;
  declare filename: string;
  declare mime_type: MediaMimeType;
  declare size: number;
  declare sha256: string;
  declare storage_key: string;
  declare certificate_serial: string;
  /** Subject of the signing certificate (names the organisation); null for files signed before per-organisation certificates. */
  declare certificate_subject: string | null;
  declare created_at: Date;
}
