import type { AnchorView } from './views.js';
import type { SignedFile, SignJob } from '../db/repositories/sign-jobs.js';
import { SIGNED_STATUSES } from '../job-status.js';

export interface JobView {
  job_id: string;
  status: SignJob['status'];
  upload_id: string;
  /** The manifest the job applies: with a template, its defaults merged under the request's fields. */
  manifest: SignJob['manifest'];
  /** The manifest template (and the version of it) the job used; null without one. */
  template: { id: string; version: number } | null;
  /**
   * Whether the file is signed with a soft binding (an ISCC fingerprint): the request's or template's choice, null
   * following the organisation's setting; always false (none) for video, audio and documents.
   */
  soft_binding: boolean | null;
  /** Embedded in the file, or remote: in the manifest repository, named by the file and its download's Link header. */
  manifest_placement: SignJob['manifest_placement'];
  attempts: number;
  created_at: string;
  updated_at: string;
  status_url: string;
  error: { code: string; message: string } | null;
  signed_file: {
    file_id: string;
    sha256: string;
    size: number;
    mime_type: string;
    certificate_serial: string;
    /** Who signed: the subject of the organisation's signing certificate. */
    certificate_subject: string | null;
    download_url: string;
    /** A signed fragmented MP4 rendition (downloaded as a zip of its parts); null for a single file. */
    rendition: { fragments: number; playlists: number } | null;
  } | null;
  /** The signed file's on-chain anchor: its state and, once anchored, the complete proof. */
  anchor: AnchorView | null;
}

/**
 * The public shape of a job; the same for the sign response, the status endpoint, listings and webhooks. `rendition`:
 * the signed file's count of segments and playlists when it is a rendition (renditionsOf).
 */
export function jobView(baseUrl: string, job: SignJob, file: SignedFile | undefined, anchor?: AnchorView, rendition?: { fragments: number; playlists: number }): JobView {
  const hasFile = SIGNED_STATUSES.includes(job.status) && file !== undefined;
  return {
    job_id: job.id,
    status: job.status,
    upload_id: job.upload_id,
    manifest: job.manifest,
    template: job.template_id && job.template_version !== null ? { id: job.template_id, version: job.template_version } : null,
    soft_binding: job.soft_binding,
    manifest_placement: job.manifest_placement,
    attempts: job.attempts,
    created_at: job.created_at.toISOString(),
    updated_at: job.updated_at.toISOString(),
    status_url: `${baseUrl}/v1/media/jobs/${job.id}`,
    error: job.status === 'failed' ? { code: job.error_code ?? 'signing_failed', message: job.error_message ?? 'signing failed' } : null,
    signed_file:
      hasFile
        ? {
            file_id: file.id,
            sha256: file.sha256,
            size: Number(file.size),
            mime_type: file.mime_type,
            certificate_serial: file.certificate_serial,
            certificate_subject: file.certificate_subject,
            download_url: `${baseUrl}/v1/media/files/${file.id}`,
            rendition: rendition ?? null,
          }
        : null,
    anchor: hasFile ? (anchor ?? null) : null,
  };
}

/** The renditions among signed files, by file id: their count of segments and playlists (renditionPartCounts). */
export function renditionsOf(counts: Map<string, Record<'init' | 'fragment' | 'playlist', number>>): Map<string, { fragments: number; playlists: number }> {
  return new Map([...counts].map(([id, c]) => [id, { fragments: c.fragment, playlists: c.playlist }]));
}
