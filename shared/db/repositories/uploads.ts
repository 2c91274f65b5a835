/** The uploads table: files received to be signed, each one in the file store under its storage key. */
import { Model } from 'objection';
import type { MediaMimeType } from '../../media/formats.js';
import type { Knex } from '../knex.js';
import { applyPage, type PageRequest } from '../page.js';
import type { RenditionPartView } from './rendition-parts.js';

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
  /** A document's title from its own metadata (null: other media, or none given); a sign request without a title takes it. */
  declare document_title: string | null;
  declare created_at: Date;

  toPublic(): UploadView {
    return {
      upload_id: this.id,
      sha256: this.sha256,
      size: Number(this.size),
      mime_type: this.mime_type,
      filename: this.filename,
      document_title: this.document_title ?? null,
      created_at: this.created_at.toISOString(),
      rendition: null,
    };
  }
}

/** A fragmented MP4 rendition's parts: how many segments and playlists, and (when it is stored) each part. */
export interface RenditionSummary {
  fragments: number;
  playlists: number;
  parts?: RenditionPartView[];
}

export interface UploadView {
  upload_id: string;
  sha256: string;
  size: number;
  mime_type: MediaMimeType;
  filename: string;
  document_title: string | null;
  created_at: string;
  /** Set for a fragmented MP4 rendition (init segment, segments, playlists); null for a single file. */
  rendition: RenditionSummary | null;
}

export async function insertUpload(upload: Pick<Upload, 'id' | 'org_id' | 'user_id' | 'api_key_id' | 'filename' | 'mime_type' | 'size' | 'sha256' | 'storage_key'> & Partial<Pick<Upload, 'document_title'>>, db?: Knex): Promise<Upload> {
  return Upload.query(db).insert(upload).returning('*');
}

export async function findUploadById(id: string, db?: Knex): Promise<Upload | undefined> {
  return Upload.query(db).findById(id);
}

/** The organisation's upload; another organisation's is not found. */
export async function findOrgUpload(orgId: string, id: string, db?: Knex): Promise<Upload | undefined> {
  return Upload.query(db).findOne({ id, org_id: orgId });
}

/** A page of the organisation's uploads, newest first. */
export async function listOrgUploads(orgId: string, page: PageRequest, db?: Knex): Promise<Upload[]> {
  return applyPage(Upload.query(db).where({ org_id: orgId }), page);
}
