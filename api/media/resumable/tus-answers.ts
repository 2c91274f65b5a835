/**
 * The tus edge's one table: what @tus/server refuses, said in the service's error shape. tus's own statuses are kept
 * (412 for a missing Tus-Resumable, 460 for a checksum...) since tus clients act on them; the ones clients must
 * understand get a code of their own.
 */
import { ERRORS } from '@tus/utils';

export interface TusAnswer {
  status: number;
  code: string;
  message: string;
}

/** An error @tus/server raises: a constant of @tus/utils' ERRORS ({status_code, body}). */
export interface TusError {
  status_code: number;
  body: string;
}

export function isTusError(err: unknown): err is TusError {
  return typeof err === 'object' && err !== null && typeof (err as TusError).status_code === 'number' && typeof (err as TusError).body === 'string';
}

const KNOWN = new Map<TusError, Omit<TusAnswer, 'status'> & { status?: number }>([
  [ERRORS.INVALID_OFFSET, { code: 'upload_offset_conflict', message: 'Upload-Offset is not the number of bytes received so far: ask with HEAD and resume from its Upload-Offset' }],
  [ERRORS.ERR_LOCK_TIMEOUT, { status: 423, code: 'upload_locked', message: 'another request is writing this upload; try again shortly' }],
  [ERRORS.FILE_NOT_FOUND, { code: 'not_found', message: 'upload session not found' }],
  [ERRORS.FILE_NO_LONGER_EXISTS, { status: 404, code: 'not_found', message: 'upload session not found' }],
  [ERRORS.ERR_SIZE_EXCEEDED, { code: 'payload_too_large', message: 'the body goes past the declared Upload-Length' }],
  [ERRORS.ABORTED, { status: 400, code: 'upload_aborted', message: 'the upload was interrupted' }],
  [ERRORS.MISSING_OFFSET, { status: 400, code: 'upload_offset_required', message: 'a PATCH needs an Upload-Offset header' }],
  [ERRORS.INVALID_CONTENT_TYPE, { status: 415, code: 'unsupported_media_type', message: 'a PATCH body is sent as Content-Type: application/offset+octet-stream' }],
]);

/** The answer to a refusal by @tus/server: the error it raised (when it raised one), else its status and text. */
export function tusAnswer(err: TusError | undefined, status: number, text: string): TusAnswer {
  const known = err && KNOWN.get(err);
  if (known) return { status: known.status ?? err.status_code, code: known.code, message: known.message };
  if (status === 412) return { status, code: 'tus_version_unsupported', message: 'send Tus-Resumable: 1.0.0' };
  // The protocol's other refusals are fixed texts of @tus/server (an invalid header, an unsupported extension).
  return { status, code: 'tus_request_refused', message: text.trim().slice(0, 300) || 'the tus request was refused' };
}
