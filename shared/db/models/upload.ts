import { Model } from 'objection';
import type { MediaMimeType } from '../../media/formats.js';

export class Upload extends Model {
  static override tableName = 'uploads';
  declare id: string;
  declare org_id: string;
  declare user_id: string | null;
  declare api_key_id: string | null;
  declare filename: string;
  declare mime_type: MediaMimeType;
  declare size: number;
  declare sha256: string;
  declare storage_key: string;
  declare created_at: Date;

  toPublic(): { upload_id: string; sha256: string; size: number; mime_type: MediaMimeType; filename: string; created_at: string } {
    return {
      upload_id: this.id,
      sha256: this.sha256,
      size: Number(this.size),
      mime_type: this.mime_type,
      filename: this.filename,
      created_at: this.created_at.toISOString(),
    };
  }
}
